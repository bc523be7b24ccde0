import ms from 'ms'
import { A2Error } from '../../log/error-brand.ts'
import type { ErrorStatuses } from '../../log/error-statuses.ts'
import type { TimerWhen } from '../../runtime/handler-context.ts'

declare module '../../log/error-brand.ts' {
  interface A2Codes {
    /** A timer's delay or time that cannot be read (`ctx.session.schedule`). */
    INVALID_TIMER: undefined
  }
}

/** The HTTP answer to a timer that cannot be read. */
export const TIMER_ERROR_STATUSES: ErrorStatuses<'INVALID_TIMER'> = { INVALID_TIMER: 400 }

/**
 * When a timer fires, in epoch milliseconds. A delay counts from `from` (the
 * triggering event's timestamp), so a retried handler computes the same
 * target time and converges on the same timer.
 */
export function timerTarget(when: TimerWhen, from: number): number {
  if ('delay' in when) {
    const delay = typeof when.delay === 'number' ? when.delay : ms(when.delay as ms.StringValue)
    if (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0) {
      throw new A2Error(
        'INVALID_TIMER',
        `Cannot read timer delay ${JSON.stringify(when.delay)}: use '30s', '5m', '2h', '1d' or milliseconds`,
      )
    }
    return from + delay
  }
  const at =
    when.at instanceof Date
      ? when.at.getTime()
      : typeof when.at === 'number'
        ? when.at
        : Date.parse(when.at)
  if (!Number.isFinite(at))
    throw new A2Error('INVALID_TIMER', `Cannot read timer time ${JSON.stringify(when.at)}`)
  return at
}
