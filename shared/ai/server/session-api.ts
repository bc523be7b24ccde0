import { ReservedEventIdError } from '../../log/errors.ts'
import type { EventInput } from '../../log/event.ts'
import { isReservedId } from '../../log/event.ts'
import type { Reducer, StateSnapshot } from '../../log/reducer.ts'
import { exportSession } from '../../log/session-export.ts'
import type { HandlerSession, TimerWhen } from '../../runtime/handler-context.ts'
import { newInputIdOf } from '../events/input-identity.ts'
import { sessionScopedId } from '../ids.ts'
import { mergeState } from '../state/session-state.ts'
import type { AgentEraseReceipt, EraseOptions } from './erase-agent-session.ts'
import type { LaneContext } from './lanes/lane-context.ts'
import { checkMessages } from './message-check.ts'
import { timerLogOf } from './timer-log.ts'
import { timerTarget } from './timer-target.ts'

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
}

/**
 * A session as server code sees it: trusted appends (no `authorize`) that
 * wake the lanes they concern, wherever they come from (`agent.session()`, a
 * tool, a handler), state, and named timers, set from `timers` (default: the
 * agent's clock, in no call's scope).
 */
export function agentSession(
  lane: LaneContext,
  sessionId: string,
  timers: TimerOrigin = { from: lane.config.now },
): AgentSession {
  const log = lane.log.session(sessionId)
  return {
    id: log.sessionId,
    append: (...events) => lane.append(sessionId, events),
    async state<Other>(reducer?: Reducer<Other, never>): Promise<StateSnapshot<never>> {
      if (reducer) return (await log.state(reducer)) as StateSnapshot<never>
      const { state, index } = await lane.state(sessionId)
      return { state: mergeState(state.ai, state.app), index } as StateSnapshot<never>
    },
    erase: (options?: EraseOptions) => lane.erase(sessionId, options),
    export: () => exportSession(lane.store, sessionId),
    async schedule(name: string, when: TimerWhen, ...events: EventInput[]): Promise<void> {
      for (const event of events) {
        if (event.id !== undefined && isReservedId(event.id))
          throw new ReservedEventIdError(event.id)
      }
      // A message the log would refuse when the timer fires is refused now,
      // while the caller can hear it, not at every firing.
      await checkMessages(events)
      const at = timerTarget(when, timers.from())
      // A timer set in a log fires only into that log, never into an erased one.
      const setIn = await timerLogOf(lane.store, sessionId)
      await lane.scheduler.schedule({
        sessionId,
        name: timers.call === undefined ? name : `${timers.call}/${name}`,
        at,
        ...(setIn ? { setIn } : {}),
        events: events.map((event, position) => ({
          // A new input keeps its message ID, which the log requires of it.
          id:
            event.id ?? newInputIdOf(event) ?? sessionScopedId('timer', sessionId, name, position),
          type: event.type,
          payload: event.payload,
        })),
      })
    },
  } as AgentSession
}
