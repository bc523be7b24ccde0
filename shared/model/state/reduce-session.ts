import type { UIMessage } from 'ai'
import type { AIEventPayload } from '../events/ai-events.ts'
import type { AIState, CompactionState } from './ai-state.ts'
import { COMPACTION_PART_TYPE, type CompactionData } from './compaction-part.ts'
import { setId } from './id-map.ts'
import { applyToResponseMessage } from './response-helpers.ts'

// Compaction, model metadata and the session lifecycle.

function withCompaction<M extends UIMessage>(
  state: AIState<M>,
  compaction: CompactionState,
  index: number,
): AIState<M> {
  const { compactionId, messageId, upToMessageId: _upTo, ...rest } = compaction
  const data: CompactionData = rest
  // The marker is a data part, upserted by ID exactly as the SDK upserts a
  // streamed data part, so it settles in place.
  const next = applyToResponseMessage(state, messageId, index, [
    { type: COMPACTION_PART_TYPE, id: compactionId, data },
  ])
  return { ...next, compaction }
}

export function reduceCompactionStarted<M extends UIMessage>(
  state: AIState<M>,
  payload: AIEventPayload<'ai.compaction.started', M>,
  index: number,
): AIState<M> {
  return withCompaction(
    state,
    {
      compactionId: payload.compactionId,
      messageId: payload.messageId,
      status: 'running',
      ...(payload.inputTokens === undefined ? {} : { inputTokens: payload.inputTokens }),
      ...(payload.thresholdTokens === undefined
        ? {}
        : { thresholdTokens: payload.thresholdTokens }),
    },
    index,
  )
}

export function reduceCompactionEnded<M extends UIMessage>(
  state: AIState<M>,
  payload: AIEventPayload<'ai.compaction.completed' | 'ai.compaction.failed', M>,
  index: number,
): AIState<M> {
  const current = state.compaction
  if (current?.compactionId !== payload.compactionId) return state
  const ended: CompactionState =
    'summary' in payload
      ? {
          ...current,
          status: 'completed',
          summary: payload.summary,
          upToMessageId: payload.upToMessageId,
          // Stored as the record the SDK's usage serialised to; read back as it.
          ...(payload.usage === undefined ? {} : { usage: payload.usage as never }),
        }
      : { ...current, status: payload.status }
  const next = withCompaction(state, ended, index)
  return 'summary' in payload
    ? {
        ...next,
        compacted: {
          compactionId: payload.compactionId,
          summary: payload.summary,
          upToMessageId: payload.upToMessageId,
        },
      }
    : next
}

export function reduceModelMetadataRequested<M extends UIMessage>(
  state: AIState<M>,
  payload: AIEventPayload<'ai.model.metadata.requested', M>,
): AIState<M> {
  if (Object.hasOwn(state.modelMetadata, payload.modelId)) return state
  const modelMetadata = { ...state.modelMetadata }
  setId(modelMetadata, payload.modelId, { status: 'pending' })
  return { ...state, modelMetadata }
}

export function reduceModelMetadataResolved<M extends UIMessage>(
  state: AIState<M>,
  payload: AIEventPayload<'ai.model.metadata.resolved', M>,
): AIState<M> {
  const { modelId, ...metadata } = payload
  const modelMetadata = { ...state.modelMetadata }
  setId(
    modelMetadata,
    modelId,
    metadata.status === 'unavailable' ? { status: 'unavailable' } : metadata,
  )
  return { ...state, modelMetadata }
}
