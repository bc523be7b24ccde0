import type { StoredEvent } from '../../log/event.ts'
import type { Reducer } from '../../log/reducer.ts'
import { AI_STATE_REDUCER } from '../state/ai-state-reducer.ts'
import type { SessionState } from './lanes/lane-context.ts'

/**
 * The agent's session reducer: the AI reducer beside the contract's. Its name
 * joins both names, so renaming either invalidates the session's snapshots.
 */
export function sessionReducer(
  app: Reducer<unknown, never> | undefined,
): Reducer<SessionState, StoredEvent> {
  const appFold = app?.fold as ((state: unknown, event: StoredEvent) => unknown) | undefined
  return {
    name: app ? `${AI_STATE_REDUCER.name}+${app.name}` : AI_STATE_REDUCER.name,
    initialState: { ai: AI_STATE_REDUCER.initialState, app: app?.initialState ?? {} },
    fold: (state, event) => {
      const ai = AI_STATE_REDUCER.fold(state.ai, event)
      const next = appFold ? appFold(state.app, event) : state.app
      return ai === state.ai && next === state.app ? state : { ai, app: next }
    },
  }
}

/** What `session.state()` returns: AIState merged with the app's state. */
export function mergedState(state: SessionState): Record<string, unknown> {
  return { ...(state.app as object), ...state.ai }
}
