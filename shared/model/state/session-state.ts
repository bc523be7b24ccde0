import type { StoredEvent } from '../../log/event.ts'
import type { Reducer, StateSnapshot } from '../../log/reducer.ts'
import { upcastEvent, upcastsOf } from '../../log/upcast.ts'
import type { EventDefinition, EventUpcasts } from '../../log/versioned-event.ts'
import { AI_EVENT_UPCASTS } from '../events/ai-event-upcasts.ts'
import { AI_STATE_KEYS, type AIState, initialAIState } from './ai-state.ts'
import { AI_STATE_REDUCER } from './ai-state-reducer.ts'

/**
 * A session's state as the agent (server) and the client (browser) fold it:
 * the AI reducer's state beside the app contract's. One fold for both, so
 * they cannot drift.
 */
export interface SessionState {
  ai: AIState
  app: unknown
}

/**
 * An app contract as the client needs it: its reducer, which the browser
 * folds too, and its events, whose older versions it upcasts first.
 */
export interface ContractLike<App = unknown> {
  reducer?: Reducer<App, never>
  events?: Readonly<Record<string, EventDefinition>>
}

/**
 * The session reducer: the AI reducer over every event, and the contract's
 * reducer over every event when there is one. Its name joins both names (the
 * snapshot identity), so renaming either invalidates the snapshots. Each
 * event is upcast first (`upcastEvent`): an app event by the contract's
 * `events`, an `ai.*` one by A2's registry (`aiUpcasts`, a test's own), so
 * a browser folds current payloads too, whatever version the log holds.
 *
 * @example
 * const reducer = sessionReducer(supportDesk)
 * const next = reducer.fold(reducer.initialState, storedEvent)
 */
export function sessionReducer<App>(
  contract: ContractLike<App> | undefined,
  aiUpcasts: EventUpcasts = AI_EVENT_UPCASTS,
): Reducer<SessionState> {
  const app = contract?.reducer as Reducer<unknown, StoredEvent> | undefined
  const versions = upcastsOf({ ...contract?.events, ...aiUpcasts })
  return {
    name: app ? `${AI_STATE_REDUCER.name}+${app.name}` : AI_STATE_REDUCER.name,
    initialState: { ai: AI_STATE_REDUCER.initialState, app: app?.initialState ?? {} },
    fold: (state, stored) => {
      const event = upcastEvent(versions, stored)
      const ai = AI_STATE_REDUCER.fold(state.ai, event)
      const next = app ? app.fold(state.app, event) : state.app
      return ai === state.ai && next === state.app ? state : { ai, app: next }
    },
  }
}

/** The state a session exposes: the app's merged under AIState (AIState wins a clash). */
export function mergeState<A extends AIState>(ai: A, app: unknown): A & Record<string, unknown> {
  return typeof app === 'object' && app !== null && Object.keys(app).length > 0
    ? { ...(app as Record<string, unknown>), ...ai }
    : (ai as A & Record<string, unknown>)
}

/**
 * Splits a server snapshot (`session.state()`, merged the same way) back
 * into the two reducers' states, so the client can go on folding from it.
 */
export function splitSnapshot(
  snapshot: StateSnapshot<unknown>,
  contract: ContractLike | undefined,
): StateSnapshot<SessionState> {
  const merged = (snapshot.state ?? {}) as Record<string, unknown>
  const ai: Record<string, unknown> = {}
  const app: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(merged))
    (AI_STATE_KEYS.has(key) ? ai : app)[key] = value
  return {
    index: snapshot.index,
    // The life it is of: what tells a client it missed an erase and a start over.
    ...(typeof snapshot.life === 'string' && snapshot.life !== '' ? { life: snapshot.life } : {}),
    state: {
      ai: { ...initialAIState(), ...ai } as AIState,
      app: contract?.reducer ? { ...(contract.reducer.initialState as object), ...app } : {},
    },
  }
}
