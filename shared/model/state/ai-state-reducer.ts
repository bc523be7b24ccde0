import type { StoredEvent } from '../../log/event.ts'
import type { Reducer } from '../../log/reducer.ts'
import { upcastEvent, upcastsOf } from '../../log/upcast.ts'
import type { EventUpcasts } from '../../log/versioned-event.ts'
import { AI_EVENT_UPCASTS } from '../events/ai-event-upcasts.ts'
import { type AIState, initialAIState } from './ai-state.ts'
import { reduceAIState } from './reduce-ai-state.ts'

/**
 * The AI reducer over `ai.*` events upcast by `upcasts` (A2's registry).
 * @internal Exported for its test, which passes a registry of its own (knip --production).
 */
export function aiStateReducer(upcasts: EventUpcasts): Reducer<AIState, StoredEvent> {
  const versions = upcastsOf(upcasts)
  return {
    name: 'a2.ai.state.v6',
    initialState: initialAIState(),
    fold: (state, event) => reduceAIState(state, upcastEvent(versions, event)),
  }
}

/**
 * The built-in AI reducer. Its name is the snapshot identity: bump the version
 * whenever `reduceAIState` or `AIState` changes meaning. It folds `ai.*`
 * events upcast by A2's registry (`AI_EVENT_UPCASTS`), so whoever folds a
 * raw log with it (the inspector, your own reader) sees current payloads.
 */
export const AI_STATE_REDUCER: Reducer<AIState, StoredEvent> & { name: 'a2.ai.state.v6' } = {
  ...aiStateReducer(AI_EVENT_UPCASTS),
  name: 'a2.ai.state.v6',
}
