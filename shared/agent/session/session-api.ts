import { ReservedEventIdError } from '../../log/errors.ts'
import type { EventInput, StoredEvent } from '../../log/event.ts'
import { isReservedId } from '../../log/event.ts'
import { checkSessionId } from '../../log/event-envelope.ts'
import type { Reducer, StateSnapshot } from '../../log/reducer.ts'
import { newInputIdOf } from '../../model/events/input-identity.ts'
import { sessionScopedId } from '../../model/ids/ids.ts'
import { mergeState, type SessionState } from '../../model/state/session-state.ts'
import type { HandlerSession, TimerWhen } from '../../runtime/handler-context.ts'
import type { Timer } from '../../runtime/scheduler.ts'
import { timerTarget } from '../timers/timer-target.ts'
import type { AgentEraseReceipt, EraseOptions } from './erase-agent-session.ts'
import { checkMessages } from './message-check.ts'

export interface AgentSession<State = Record<string, unknown>> extends HandlerSession<State> {
  /**
   * Removes the session from the store, every item kind, cancels its
   * pending timers, and says what it removed (an erasure request). Refuses with `SessionActiveError`
   * (`SESSION_ACTIVE`) while a turn is active, unless `force`. Idempotent:
   * erasing an erased session removes nothing. The session then reads as
   * empty; a new message starts it over at index 1.
   */
  erase(options?: EraseOptions): Promise<AgentEraseReceipt>
  /**
   * The session's log as JSON Lines (`exportSession`): for a support ticket,
   * a replay in a test, or a move to another store with `importSession`.
   */
  export(): Promise<string>
}

/** What `agent.session(id, options)` is bound to. */
export interface SessionOptions {
  /**
   * The session's life its appends are for (`StateSnapshot.life`,
   * `StoredEvent.life`): an append lands only in it, and fails with
   * `LifeEndedError` once that life was erased, so a command sent before an
   * erase (a request a stalled server held) does not start the session over.
   */
  life?: string
}

/**
 * Timers of a session, set in a life of its log (so they never fire into an
 * erased one): `life`, the one the work setting it read, or the session's
 * current life.
 */
export interface SessionTimers {
  schedule(timer: Omit<Timer, 'setIn'>, life?: string): Promise<void>
}

/** Where a session's timers count from, and whose they are. */
export interface TimerOrigin {
  /** The time delays count from: the triggering event's inside a tool or handler. */
  from: () => number
  /**
   * The logical tool call a tool's timers belong to (its idempotency key,
   * which the tool sees as `ctx.idempotencyKey`). A timer's name is its
   * identity within the call, so a tool that names its timer after its
   * `toolCallId` converges on one timer across retries of the call, and a
   * provider that reuses the ID in a later step gets another. The scope is
   * part of the name (`<key>/<name>`), so every scheduler keeps it apart.
   */
  call?: string
  /**
   * The life of the session the work (a tool, a handler) runs in: its
   * appends land only in it and its timers fire only into it, so work that
   * outlived an erase leaves nothing in the session's next life.
   */
  life?: string
}

/** What a session as server code sees it is made of. */
export interface SessionPorts {
  /** The agent's clock: where timers count from outside a tool or handler. */
  now(): number
  /** The session's folded state at the log's end (cached per session). */
  state(sessionId: string): Promise<StateSnapshot<SessionState>>
  /** The session's log folded by another reducer. */
  fold<State>(sessionId: string, reducer: Reducer<State, never>): Promise<StateSnapshot<State>>
  /** A trusted server append, which wakes the lanes the new events concern (only into `life`, when named). */
  append(sessionId: string, events: readonly EventInput[], life?: string): Promise<StoredEvent[]>
  erase(sessionId: string, options?: EraseOptions): Promise<AgentEraseReceipt>
  export(sessionId: string): Promise<string>
  readonly timers: SessionTimers
}

/**
 * A session as server code sees it: trusted appends (no `authorize`) that
 * wake the lanes they concern, wherever they come from (`agent.session()`, a
 * tool, a handler), state, and named timers, set from `timers` (default: the
 * agent's clock, in no call's scope).
 */
export function agentSession(
  ports: SessionPorts,
  sessionId: string,
  timers: TimerOrigin = { from: ports.now },
): AgentSession {
  // A malformed ID is refused here, where the caller named it.
  const id = checkSessionId(sessionId)
  return {
    id,
    append: (...events) => ports.append(sessionId, events, timers.life),
    async state<Other>(reducer?: Reducer<Other, never>): Promise<StateSnapshot<never>> {
      if (reducer) return (await ports.fold(sessionId, reducer)) as StateSnapshot<never>
      const { state, index, life } = await ports.state(sessionId)
      return {
        state: mergeState(state.ai, state.app),
        index,
        ...(life === undefined ? {} : { life }),
      } as StateSnapshot<never>
    },
    // A handle bound to a life erases only that life.
    erase: (options?: EraseOptions) =>
      ports.erase(sessionId, {
        ...(timers.life === undefined ? {} : { life: timers.life }),
        ...options,
      }),
    export: () => ports.export(sessionId),
    async schedule(name: string, when: TimerWhen, ...events: EventInput[]): Promise<void> {
      for (const event of events) {
        if (event.id !== undefined && isReservedId(event.id))
          throw new ReservedEventIdError(event.id)
      }
      // A message the log would refuse when the timer fires is refused now,
      // while the caller can hear it, not at every firing.
      await checkMessages(events)
      const at = timerTarget(when, timers.from())
      await ports.timers.schedule(
        {
          sessionId,
          name: timers.call === undefined ? name : `${timers.call}/${name}`,
          at,
          events: events.map((event, position) => ({
            // A new input keeps its message ID, which the log requires of it.
            id:
              event.id ??
              newInputIdOf(event) ??
              sessionScopedId('timer', sessionId, name, position),
            type: event.type,
            payload: event.payload,
          })),
        },
        timers.life,
      )
    },
  } as AgentSession
}
