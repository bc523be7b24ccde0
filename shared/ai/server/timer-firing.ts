import { hasA2Code } from '../../log/error-brand.ts'
import type { EventInput, StoredEvent } from '../../log/event.ts'
import type { SessionLog } from '../../log/event-log.ts'
import type { Timer } from '../../runtime/scheduler.ts'
import type { Logger } from './agent-config.ts'
import { isTimerLog } from './timer-log.ts'

/** What firing a timer needs of it. */
export type FiredTimer = Pick<Timer, 'sessionId' | 'name' | 'events' | 'setIn'>

/**
 * Firing a due timer: its events are appended as A2 (once, by their IDs)
 * through `append`, which wakes their lanes. A timer set in a log
 * (`setIn`) fires only into that log: finding the log empty or started over
 * (erased or expired since), it is dropped with a warning, so a timer never
 * brings an erased session back. The look and the append are one step: the
 * append lands at the index just read, so an erase in between is a conflict
 * and another look, never a new log.
 */
export function timerFiring(parts: {
  session(sessionId: string): Pick<SessionLog, 'head' | 'read'>
  append(
    sessionId: string,
    events: readonly EventInput[],
    options: { author: 'a2'; expectedIndex?: number },
  ): Promise<StoredEvent[]>
  logger: Pick<Logger, 'warn'>
}): (timer: FiredTimer) => Promise<void> {
  return async (timer) => {
    const { setIn } = timer
    if (!setIn) {
      await parts.append(timer.sessionId, timer.events, { author: 'a2' })
      return
    }
    const session = parts.session(timer.sessionId)
    for (;;) {
      const expectedIndex = await session.head()
      const [first] = expectedIndex === 0 ? [] : await session.read({ limit: 1 })
      if (!isTimerLog(setIn, first)) {
        const why = first
          ? 'the session was erased and started over since it was set'
          : 'the session has no log (erased or expired)'
        parts.logger.warn(`a2: timer "${timer.name}" of session ${timer.sessionId} dropped: ${why}`)
        return
      }
      try {
        await parts.append(timer.sessionId, timer.events, { author: 'a2', expectedIndex })
        return
      } catch (error) {
        if (!hasA2Code(error, 'APPEND_CONFLICT')) throw error
      }
    }
  }
}
