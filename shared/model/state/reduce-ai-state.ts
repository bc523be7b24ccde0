import type { UIMessage } from 'ai'
import type { StoredEvent } from '../../log/event.ts'
import type { AIEvent } from '../events/ai-events.ts'
import { type AIState, withTurnFacts } from './ai-state.ts'
import {
  reduceCommitted,
  reduceDecided,
  reduceMessageCreated,
  reduceRequested,
} from './reduce-control.ts'
import {
  reduceDeadLettered,
  reduceGenerationCompleted,
  reduceGenerationProgress,
  reduceGenerationRequested,
  reduceGenerationStarted,
  reduceGenerationSuperseded,
  reduceMessageCompleted,
} from './reduce-generation.ts'
import {
  reduceCompactionEnded,
  reduceCompactionStarted,
  reduceModelMetadataRequested,
  reduceModelMetadataResolved,
} from './reduce-session.ts'
import { reduceStepCompleted, withoutStepsOfEndedCalls } from './reduce-steps.ts'
import {
  reduceApprovalRequested,
  reduceToolCalled,
  reduceToolInterrupted,
  reduceToolResult,
} from './reduce-tools.ts'

/**
 * The AI reducer's pure transition over confirmed state: one stored event in,
 * the next state out. Events of other types leave the state as it is, so an
 * app's own events can share the log.
 *
 * @example
 * const state = events.reduce(reduceAIState, initialAIState())
 */
export function reduceAIState<M extends UIMessage = UIMessage>(
  state: AIState<M>,
  stored: StoredEvent,
): AIState<M> {
  return withTurnFacts(withoutStepsOfEndedCalls(state, reduceEvent(state, stored)))
}

function reduceEvent<M extends UIMessage>(state: AIState<M>, stored: StoredEvent): AIState<M> {
  const event = stored as AIEvent<M>
  switch (event.type) {
    case 'ai.control.requested':
      return reduceRequested(state, event)
    case 'ai.message.created':
      return reduceMessageCreated(state, event.payload)
    case 'ai.control.committed':
      return reduceCommitted(state, event.payload, event.index, event.timestamp)
    case 'ai.control.decided':
      return reduceDecided(state, event.payload)
    case 'ai.generation.requested':
      return reduceGenerationRequested(state, event, event.payload)
    case 'ai.generation.started':
      return reduceGenerationStarted(state, event.payload, event.index, event.timestamp)
    case 'ai.generation.progress':
      return reduceGenerationProgress(state, event.payload, event.index)
    case 'ai.generation.completed':
      return reduceGenerationCompleted(state, event.payload)
    case 'ai.generation.superseded':
      return reduceGenerationSuperseded(state, event.payload)
    case 'ai.tool.called':
      return reduceToolCalled(state, event.payload, event)
    case 'ai.approval.requested':
      return reduceApprovalRequested(state, event.payload, event.index)
    case 'ai.tool.result':
      return reduceToolResult(state, event.payload, event.index)
    case 'ai.tool.interrupted':
      return reduceToolInterrupted(state, event.payload)
    case 'ai.step.completed':
      return reduceStepCompleted(state, event.payload)
    case 'ai.message.completed':
      return reduceMessageCompleted(state, event.payload)
    case 'ai.model.metadata.requested':
      return reduceModelMetadataRequested(state, event.payload)
    case 'ai.model.metadata.resolved':
      return reduceModelMetadataResolved(state, event.payload)
    case 'ai.session.created':
      return state
    case 'ai.session.closed':
      return state.closed ? state : { ...state, closed: true }
    case 'ai.handler.dead-lettered':
      return reduceDeadLettered(state, event.payload, event.index)
    case 'ai.compaction.started':
      return reduceCompactionStarted(state, event.payload, event.index)
    case 'ai.compaction.completed':
    case 'ai.compaction.failed':
      return reduceCompactionEnded(state, event.payload, event.index)
    default:
      return state
  }
}
