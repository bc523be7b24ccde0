import { hasA2Code } from '../../log/error-brand.ts'
import { sessionScopedId } from '../../model/ids/ids.ts'
import { lookupGaveUp } from '../../model/state/model-lookups.ts'
import { lookUpModel } from '../model-step/model-catalog.ts'
import type { MetadataPorts } from './lane-ports.ts'

/**
 * The model metadata lane: looks up a model whose metadata is pending and
 * records its limits, apart from the generation, which never waits for it.
 * A wake-up keyed by a model looks that one up (a new request); an unkeyed
 * one (recovery, `wakeAll`) looks up every pending model whose lookup was
 * not given up. A failed lookup throws, so it is retried with backoff; once
 * the retries are exhausted it is dead-lettered under its model and the
 * model stays pending: no later turn or reader asks again.
 */
export async function runMetadataLane(
  lane: MetadataPorts,
  sessionId: string,
  key?: string,
): Promise<void> {
  const { state, life } = await lane.state(sessionId)
  for (const [modelId, metadata] of Object.entries(state.ai.modelMetadata)) {
    if (metadata.status !== 'pending') continue
    if (key === undefined ? lookupGaveUp(state.ai, modelId) : key !== modelId) continue
    const limits = await lookUpModel(modelId, lane.config.modelCatalog)
    const resolved = {
      id: sessionScopedId('model-metadata-resolved', sessionId, modelId),
      type: 'ai.model.metadata.resolved' as const,
      payload: limits
        ? { modelId, status: 'resolved' as const, ...limits }
        : { modelId, status: 'unavailable' as const },
    }
    // Recorded only into the life that still asks: a session erased while
    // the lookup ran must not start over with its answer (LIFE_ENDED).
    for (;;) {
      const { state: current, index } = await lane.state(sessionId)
      if (current.ai.modelMetadata[modelId]?.status !== 'pending') break
      try {
        await lane.append(sessionId, [resolved], { at: index, life })
        break
      } catch (error) {
        if (!hasA2Code(error, 'APPEND_CONFLICT')) throw error
      }
    }
  }
}
