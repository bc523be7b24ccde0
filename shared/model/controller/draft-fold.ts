import type { UIMessage } from 'ai'
import type { StoredEvent } from '../../log/event.ts'
import type { AIEventInput } from '../events/ai-events.ts'
import type { AIState } from '../state/ai-state.ts'
import { reduceAIState } from '../state/reduce-ai-state.ts'

// The controller decides in several moves (a command's own events, then
// whatever they make due), so it folds its own output to see the next state.
// Indexes here are provisional: the log assigns the real ones, and the
// runtime folds the stored events, not this draft.

export function foldDraft<M extends UIMessage>(
  state: AIState<M>,
  events: readonly AIEventInput<M>[],
  sessionId = '',
): AIState<M> {
  let next = state
  for (const event of events) {
    next = reduceAIState(next, {
      ...event,
      sessionId,
      index: Number.MAX_SAFE_INTEGER,
      timestamp: 0,
    } as StoredEvent)
  }
  return next
}
