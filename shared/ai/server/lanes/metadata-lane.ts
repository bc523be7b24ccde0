import { derivedId } from '../../ids.ts'
import { lookUpModel } from '../model-catalog.ts'
import type { LaneContext } from './lane-context.ts'

/**
 * The model metadata lane: looks up each model whose metadata is pending and
 * records its limits, apart from the generation, which never waits for it. A
 * failed lookup throws, so it is retried with backoff; once the retries are
 * exhausted the model stays pending (and dead-lettered), and no generation
 * asks again, since only a model with no metadata at all is requested.
 */
export async function runMetadataLane(lane: LaneContext, sessionId: string): Promise<void> {
  const { state } = await lane.state(sessionId)
  for (const [modelId, metadata] of Object.entries(state.ai.modelMetadata)) {
    if (metadata.status !== 'pending') continue
    const limits = await lookUpModel(modelId, lane.options.modelCatalog ?? {})
    await lane.appendAsA2(sessionId, [
      {
        id: derivedId('model-metadata-resolved', modelId),
        type: 'ai.model.metadata.resolved',
        payload: limits
          ? { modelId, status: 'resolved', ...limits }
          : { modelId, status: 'unavailable' },
      },
    ])
  }
}
