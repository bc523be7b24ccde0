import type { StoredEvent } from '../../log/event.ts'
import type { Reducer } from '../../log/reducer.ts'
import { type AIState, initialAIState } from './ai-state.ts'
import { reduceAIState } from './reduce-ai-state.ts'

/**
 * The built-in AI reducer. Its name is the snapshot identity: bump the version
 * whenever `reduceAIState` or `AIState` changes meaning.
 */
export const AI_STATE_REDUCER: Reducer<AIState, StoredEvent> & { name: 'a2.ai.state.v6' } = {
  name: 'a2.ai.state.v6',
  initialState: initialAIState(),
  fold: reduceAIState,
}
