import type { UIMessage } from 'ai'
import type { EventInput } from '../log/event.ts'
import type { Reducer, StateSnapshot } from '../log/reducer.ts'
import type { AIState } from '../model/state/ai-state.ts'
import {
  type ContractLike,
  type SessionState,
  splitSnapshot,
} from '../model/state/session-state.ts'
import type { BackoffOptions } from './backoff.ts'
import type { Endpoint } from './endpoint.ts'
import type { SkewWatch } from './server-skew.ts'
import { type AgentActions, sessionActions } from './session-actions.ts'
import { notify, sessionCore, settle } from './session-core.ts'
import { pushEvents } from './session-push.ts'
import { sessionSnapshot } from './session-snapshot.ts'
import { closeSession, updateHolds } from './session-stream.ts'
import type { AgentSnapshot } from './session-view.ts'

/**
 * One session as a client holds it: an external store (`subscribe` /
 * `getSnapshot`, ready for `useSyncExternalStore`) over confirmed state, the
 * SSE subscription that keeps it current, and the pending commands folded
 * over it, plus the actions.
 */
export interface ClientSession<M extends UIMessage = UIMessage, State = AIState<M>>
  extends AgentActions<M> {
  readonly id: string
  /** Listens for changes; the first listener opens the stream, the last one's leaving closes it. */
  subscribe(listener: () => void): () => void
  /** The current picture; the same object until something changes. */
  getSnapshot(): AgentSnapshot<M, State>
  /** Adopts a server snapshot (`session(id).state()`) unless the client already has newer state. */
  hydrate(snapshot: StateSnapshot<State>): void
  /** Actions whose turn IDs and Stop frontier come from `observed()` (the rendered snapshot). */
  actions(observed: () => AgentSnapshot<M, State>): AgentActions<M>
  /** Closes the stream now and drops listeners (the client's `dispose()`). */
  close(): void
}

export interface SessionConfig {
  endpoint: Endpoint
  reducer: Reducer<SessionState>
  contract: ContractLike | undefined
  /** The client's view of its server (its protocol, a reload it demanded), shared by its sessions. */
  skew: SkewWatch
  generateId: () => string
  reconnect: BackoffOptions | undefined
  /** Head checks while the stream rests after a quiet end (default `DEFAULT_IDLE_CHECK_MS`). */
  idleCheckMs?: number | undefined
  /** Called whenever the session holds nothing (no listeners, no pushes in flight) and again when it does. */
  onIdleChange(session: ClientSession, idle: boolean): void
}

/**
 * Creates a session object. Use `createAgentClient().session(id)`, which
 * shares one per ID and collects idle ones.
 *
 * @example
 * const session = createSession('s1', config)
 * const stop = session.subscribe(() => render(session.getSnapshot()))
 */
export function createSession(id: string, config: SessionConfig): ClientSession {
  const core = sessionCore(id, config, (idle) => config.onIdleChange(session, idle))
  const push = (...events: EventInput[]) => pushEvents(core, events)
  const getSnapshot = (): AgentSnapshot => sessionSnapshot(core)
  const observe = (read: () => AgentSnapshot) => () => {
    const seen = read()
    return { state: seen.state, frontier: seen.confirmed.index }
  }

  const session: ClientSession = {
    id,
    ...sessionActions(push, observe(getSnapshot), config.generateId),
    subscribe(listener) {
      core.listeners.add(listener)
      // What the server says of itself changes every session's picture.
      core.unlistenSkew ??= config.skew.listen(() => notify(core))
      // A stream already resting opens again: a new reader wants current state.
      core.stream?.wake()
      updateHolds(core)
      return () => {
        core.listeners.delete(listener)
        if (core.listeners.size === 0) {
          core.unlistenSkew?.()
          core.unlistenSkew = undefined
        }
        updateHolds(core)
      }
    },
    getSnapshot,
    hydrate(initial) {
      if (initial.index <= core.confirmed.index) return
      core.confirmed = splitSnapshot(initial, config.contract)
      core.confirmedId = undefined
      settle(core)
      core.snapshot = undefined
      // Hydration happens while rendering: tell other listeners after it.
      queueMicrotask(() => notify(core))
    },
    actions: (observed) => sessionActions(push, observe(observed), config.generateId),
    close: () => closeSession(core),
  }
  return session
}
