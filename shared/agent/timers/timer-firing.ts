import { hasA2Code } from '../../log/error-brand.ts'
import type { EventInput, StoredEvent } from '../../log/event.ts'
import type { SessionLog } from '../../log/event-log.ts'
import type { Timer } from '../../runtime/scheduler.ts'
import type { Logger } from '../wiring/agent-config.ts'
import { isTimerLog } from './timer-log.ts'

/** What firing a timer needs of it. */
export type FiredTimer = Pick<Timer, 'sessionId' | 'name' | 'events' | 'setIn'>

/**
 * Firing a due timer: its events are appended as A2 (once, by their IDs)
 * through `append`, which wakes their lanes. A timer set in a life of the
 * log (`setIn`) fires only into that life: the append names it, and finding
 * the session empty or started over (erased or expired since), it is dropped
 * with a warning, so a timer never brings an erased session back. A timer
 * set before lives names the log by its first event, which is looked at
 * first; its append then goes into the life that log is in.
 */
export function timerFiring(parts: {
  session(sessionId: string): Pick<SessionLog, 'read'>
  append(
    sessionId: string,
    events: readonly EventInput[],
    options: { author: 'a2'; life?: string },
  ): Promise<StoredEvent[]>
  logger: Pick<Logger, 'warn' | 'info'>
  /** What handles the timer's events here, to say when nothing does. */
  handlers?: { types: ReadonlySet<string>; version: string }
}): (timer: FiredTimer) => Promise<void> {
  return async (timer) => {
    const { setIn } = timer
    if (!setIn) {
      await parts.append(timer.sessionId, timer.events, { author: 'a2' })
      return sayUnhandled(parts, timer)
    }
    const dropped = (why: string) =>
      parts.logger.warn(`a2: timer "${timer.name}" of session ${timer.sessionId} dropped: ${why}`)
    let life = setIn.life
    if (life === undefined) {
      const [first] = await parts.session(timer.sessionId).read({ limit: 1 })
      if (!isTimerLog(setIn, first)) {
        return dropped(
          first
            ? 'the session was erased and started over since it was set'
            : 'the session has no log (erased or expired)',
        )
      }
      life = (first as StoredEvent).life
    }
    try {
      await parts.append(timer.sessionId, timer.events, { author: 'a2', life })
      sayUnhandled(parts, timer)
    } catch (error) {
      if (!hasA2Code(error, 'LIFE_ENDED')) throw error
      dropped(
        error.details.currentLife === undefined
          ? 'the session has no log (erased or expired)'
          : 'the session was erased and started over since it was set',
      )
    }
  }
}

/**
 * A timer is set by a handler or a tool for something to run when it fires;
 * after a deploy that removed the handler, its application events are
 * appended and settle as events nothing handles do (the reducer folds
 * them, nothing waits on them). The log says so, so a reminder that went
 * nowhere is found.
 */
function sayUnhandled(
  parts: {
    logger: Pick<Logger, 'info'>
    handlers?: { types: ReadonlySet<string>; version: string }
  },
  timer: FiredTimer,
): void {
  const { handlers } = parts
  if (!handlers) return
  for (const { type } of timer.events) {
    if (type.startsWith('ai.') || type.startsWith('a2.') || handlers.types.has(type)) continue
    parts.logger.info(
      `a2: timer "${timer.name}" of session ${timer.sessionId} appended a "${type}" event, which no handler of version ${handlers.version} handles: it is in the log for the reducer, and nothing runs for it`,
    )
  }
}
