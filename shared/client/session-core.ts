import type { Reducer, StateSnapshot } from '../log/reducer.ts'
import type { SessionState } from '../model/state/session-state.ts'
import type { BackoffOptions } from './backoff.ts'
import type { AgentClientError } from './client-error.ts'
import type { Endpoint } from './endpoint.ts'
import { PendingCommands } from './pending-commands.ts'
import type { SkewWatch } from './server-skew.ts'
import type { AgentSnapshot } from './session-view.ts'
import type { ConnectionStatus, SseSubscription } from './sse-subscription.ts'

/** What a session's parts read of its `SessionConfig`. */
interface CoreConfig {
  readonly endpoint: Endpoint
  readonly reducer: Reducer<SessionState>
  readonly skew: SkewWatch
  readonly generateId: () => string
  readonly reconnect: BackoffOptions | undefined
  readonly idleCheckMs?: number | undefined
}

/** A push waiting for the stream to confirm the log up to `index`. */
interface Waiter {
  readonly index: number
  readonly resolve: () => void
}

/** One client session's state, which its parts (stream, pushes, snapshot) share. */
export interface SessionCore {
  readonly id: string
  readonly config: CoreConfig
  /** Tells the client the session now holds nothing (no listeners, no pushes in flight), or again does. */
  readonly onIdleChange: (idle: boolean) => void
  readonly listeners: Set<() => void>
  readonly pending: PendingCommands
  readonly waiters: Set<Waiter>
  confirmed: StateSnapshot<SessionState>
  /** The ID of the event at `confirmed.index`, once the stream delivered it (not after hydrate). */
  confirmedId: string | undefined
  connection: ConnectionStatus
  /** The log's index when the current connection opened; unknown until its head marker. */
  streamHead: number | undefined
  streamError: AgentClientError | null
  inFlight: number
  stream: SseSubscription | undefined
  closeTimer: ReturnType<typeof setTimeout> | undefined
  /** Stops hearing of the server's versions; set while the session has listeners. */
  unlistenSkew: (() => void) | undefined
  /** The picture `getSnapshot` last built; undefined once something changed. */
  snapshot: AgentSnapshot | undefined
  idle: boolean
}

export function sessionCore(
  id: string,
  config: CoreConfig,
  onIdleChange: (idle: boolean) => void,
): SessionCore {
  return {
    id,
    config,
    onIdleChange,
    listeners: new Set(),
    pending: new PendingCommands(),
    waiters: new Set(),
    confirmed: { state: config.reducer.initialState, index: 0 },
    confirmedId: undefined,
    connection: 'idle',
    streamHead: undefined,
    streamError: null,
    inFlight: 0,
    stream: undefined,
    closeTimer: undefined,
    unlistenSkew: undefined,
    snapshot: undefined,
    idle: true,
  }
}

/** Something changed: the snapshot is built again, and every listener hears of it. */
export function notify(core: SessionCore): void {
  core.snapshot = undefined
  for (const listener of [...core.listeners]) listener()
}

/** Settles the pending commands the confirmed log now holds, and the waiters it reached. */
export function settle(core: SessionCore): void {
  const { confirmed, waiters } = core
  core.pending.settle(confirmed.state.ai, confirmed.index)
  for (const waiter of waiters) {
    if (waiter.index <= confirmed.index) {
      waiters.delete(waiter)
      waiter.resolve()
    }
  }
}
