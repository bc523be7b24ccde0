import type { UIMessage } from 'ai'
import type { EventInput, StoredEvent } from '../log/event.ts'
import { foldEvents, type Reducer, type StateSnapshot } from '../log/reducer.ts'
import { newInputIdOf } from '../model/events/input-identity.ts'
import { optimisticAIState } from '../model/optimistic/optimistic-state.ts'
import type { AIState } from '../model/state/ai-state.ts'
import { expectsNews } from '../model/state/expects-news.ts'
import {
  type ContractLike,
  mergeState,
  type SessionState,
  splitSnapshot,
} from '../model/state/session-state.ts'
import { backoff } from '../timing/backoff.ts'
import { type BackoffOptions, clientBackoff } from './backoff.ts'
import type { AgentClientError } from './client-error.ts'
import { type Endpoint, postEvents } from './endpoint.ts'
import { PendingCommands } from './pending-commands.ts'
import { type AgentActions, type PushResult, sessionActions } from './session-actions.ts'
import { type AgentSnapshot, indicatorOf, stageOf, statusOf } from './session-view.ts'
import {
  type ConnectionStatus,
  openSseSubscription,
  type SseSubscription,
} from './sse-subscription.ts'

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
  generateId: () => string
  reconnect: BackoffOptions | undefined
  /** Head checks while the stream rests after a quiet end (default `DEFAULT_IDLE_CHECK_MS`). */
  idleCheckMs?: number | undefined
  /** Called whenever the session holds nothing (no listeners, no pushes in flight) and again when it does. */
  onIdleChange(session: ClientSession, idle: boolean): void
}

/** Listeners leaving and a new one arriving in the same tick (React's StrictMode) keep the stream. */
const CLOSE_STREAM_AFTER_MS = 0

/**
 * Creates a session object. Use `createAgentClient().session(id)`, which
 * shares one per ID and collects idle ones.
 *
 * @example
 * const session = createSession('s1', config)
 * const stop = session.subscribe(() => render(session.getSnapshot()))
 */
export function createSession(id: string, config: SessionConfig): ClientSession {
  const listeners = new Set<() => void>()
  const pending = new PendingCommands()
  const waiters = new Set<{ index: number; resolve: () => void }>()
  let confirmed: StateSnapshot<SessionState> = { state: config.reducer.initialState, index: 0 }
  /** The ID of the event at `confirmed.index`, once the stream delivered it (not after hydrate). */
  let confirmedId: string | undefined
  let connection: ConnectionStatus = 'idle'
  /** The log's index when the current connection opened; unknown until its head marker. */
  let streamHead: number | undefined
  let streamError: AgentClientError | null = null
  let inFlight = 0
  let stream: SseSubscription | undefined
  let closeTimer: ReturnType<typeof setTimeout> | undefined
  let snapshot: AgentSnapshot | undefined
  let idle = true

  const notify = (): void => {
    snapshot = undefined
    for (const listener of [...listeners]) listener()
  }

  function settle(): void {
    pending.settle(confirmed.state.ai, confirmed.index)
    for (const waiter of waiters) {
      if (waiter.index <= confirmed.index) {
        waiters.delete(waiter)
        waiter.resolve()
      }
    }
  }

  function apply(events: StoredEvent[]): void {
    for (const event of events) pending.placed(event.id, event.index)
    confirmed = foldEvents(config.reducer, confirmed, events)
    confirmedId = events.at(-1)?.id ?? confirmedId
    settle()
    updateHolds()
    notify()
  }

  /**
   * The server holds another log than the one folded here (a memory store
   * restarted, a session recreated): forget it, and the stream folds the new
   * one from the start. Commands that log had placed went with it.
   */
  function rewind(): void {
    confirmed = { state: config.reducer.initialState, index: 0 }
    confirmedId = undefined
    pending.forgetPlaced()
    settle()
    notify()
  }

  function updateHolds(): void {
    const wantsStream = listeners.size > 0 || waiters.size > 0
    if (wantsStream) {
      clearTimeout(closeTimer)
      closeTimer = undefined
      stream ??= openSseSubscription({
        endpoint: config.endpoint,
        sessionId: id,
        lastIndex: () => confirmed.index,
        lastId: () => confirmedId,
        lastLife: () => confirmed.life,
        onEvents: apply,
        onRewind: rewind,
        onHead: (index) => {
          if (index === streamHead) return
          streamHead = index
          notify()
        },
        // After a quiet end: open the next stream at once while anything is on its way.
        expectsNews: () =>
          inFlight > 0 ||
          waiters.size > 0 ||
          pending.size > 0 ||
          expectsNews(confirmed.state.ai as AIState),
        onStatus: (status, error) => {
          if (status === connection && error === streamError) return
          // A new connection announces its own head.
          if (status !== 'open') streamHead = undefined
          connection = status
          streamError = error
          notify()
        },
        ...(config.reconnect ? { backoff: config.reconnect } : {}),
        ...(config.idleCheckMs === undefined ? {} : { idleCheckMs: config.idleCheckMs }),
      })
    } else if (stream && closeTimer === undefined) {
      closeTimer = setTimeout(() => {
        closeTimer = undefined
        stream?.close()
        stream = undefined
      }, CLOSE_STREAM_AFTER_MS)
    }
    const nowIdle = !wantsStream && inFlight === 0
    if (nowIdle !== idle) {
      idle = nowIdle
      config.onIdleChange(session, idle)
    }
  }

  function waitFor(index: number): Promise<void> {
    if (index <= confirmed.index) return Promise.resolve()
    return new Promise((resolve) => {
      waiters.add({ index, resolve })
      updateHolds()
    })
  }

  function push(...events: EventInput[]): PushResult {
    // A new input's event ID is its message ID, as the server requires.
    const withIds = events.map((event) =>
      event.id === undefined ? { ...event, id: newInputIdOf(event) ?? config.generateId() } : event,
    )
    let stored: Promise<StoredEvent[]>
    if (withIds.length === 0) {
      stored = Promise.resolve([])
    } else {
      pending.add(withIds)
      inFlight++
      updateHolds()
      // A resting stream opens now: what this push starts streams back at once.
      stream?.wake()
      notify()
      const retryDelay = (attempt: number) =>
        backoff(attempt, clientBackoff(config.reconnect ?? {}))
      stored = postEvents(config.endpoint, id, withIds, { delay: retryDelay }).then(
        (result) => {
          for (const event of result) pending.placed(event.id, event.index)
          settle()
          return result
        },
        (error: unknown) => {
          pending.remove(withIds)
          throw error
        },
      )
      void stored
        .catch(() => undefined)
        .finally(() => {
          inFlight--
          updateHolds()
          notify()
        })
    }
    let confirmation: Promise<StoredEvent[]> | undefined
    // Lazy: a Node service that only enqueues never opens a stream it does not read.
    return Object.defineProperty(stored, 'confirmed', {
      get: () =>
        (confirmation ??= stored.then(async (result) => {
          await waitFor(Math.max(0, ...result.map((event) => event.index)))
          return result
        })),
    }) as PushResult
  }

  function getSnapshot(): AgentSnapshot {
    if (snapshot) return snapshot
    const commands = pending.list()
    const view = optimisticAIState(confirmed.state.ai, commands)
    const { requests } = confirmed.state.ai
    const unconfirmed = commands
      .filter((command) => !Object.hasOwn(requests, command.id))
      .map((command) => command.payload)
    const state = mergeState(view, confirmed.state.app)
    snapshot = {
      state,
      confirmed: {
        state: mergeState(confirmed.state.ai, confirmed.state.app),
        index: confirmed.index,
        // The life of what it applied, as the server's state() names it.
        ...(confirmed.life ? { life: confirmed.life } : {}),
      },
      messages: view.messages,
      status: statusOf(view),
      indicator: indicatorOf(view),
      stage: stageOf(view, { confirmed: confirmed.state.ai, unconfirmed }),
      connection,
      caughtUp: connection === 'open' && streamHead !== undefined && confirmed.index >= streamHead,
      error: streamError,
    }
    return snapshot
  }

  const observe = (read: () => AgentSnapshot) => () => {
    const seen = read()
    return { state: seen.state, frontier: seen.confirmed.index }
  }

  const session: ClientSession = {
    id,
    ...sessionActions(push, observe(getSnapshot), config.generateId),
    subscribe(listener) {
      listeners.add(listener)
      // A stream already resting opens again: a new reader wants current state.
      stream?.wake()
      updateHolds()
      return () => {
        listeners.delete(listener)
        updateHolds()
      }
    },
    getSnapshot,
    hydrate(initial) {
      if (initial.index <= confirmed.index) return
      confirmed = splitSnapshot(initial, config.contract)
      confirmedId = undefined
      settle()
      snapshot = undefined
      // Hydration happens while rendering: tell other listeners after it.
      queueMicrotask(notify)
    },
    actions: (observed) => sessionActions(push, observe(observed), config.generateId),
    close() {
      listeners.clear()
      waiters.clear()
      clearTimeout(closeTimer)
      closeTimer = undefined
      stream?.close()
      stream = undefined
    },
  }
  return session
}
