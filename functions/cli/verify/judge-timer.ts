import { type CheckOutcome, duration, fail, pass } from './check-result.ts'

/** Scheduler fires a one-time schedule within a minute of its time. */
export const SCHEDULER_PRECISION_MS = 60_000

export interface TimerObservation {
  /** When the timer was due (epoch ms). */
  at: number
  /** The timer's event as stored: its `timestamp` is when the timer function appended it (server clock). */
  fired?: { timestamp: number }
  /** How long after `at` it was waited for. */
  waitedMs: number
  /** Why the schedule could not be created, if it could not. */
  error?: string
}

/**
 * The Scheduler path works when the timer's event reached the session. How
 * late it fired is the append's time (AWS's clock) minus its due time.
 */
export function judgeTimer(observation: TimerObservation): CheckOutcome {
  const { at, fired, waitedMs, error } = observation
  if (error !== undefined) return fail(`could not create the schedule: ${error}`)
  if (!fired) {
    return fail(
      `the timer due at ${new Date(at).toISOString()} had not fired ${duration(waitedMs)} later: Scheduler could not deliver it (look in the Scheduler dead-letter queue) or the timer function failed (its logs)`,
      { waitedMs },
    )
  }
  const lateMs = fired.timestamp - at
  return pass(
    `a Scheduler timer fired ${duration(lateMs)} after its time (Scheduler's precision is ${duration(SCHEDULER_PRECISION_MS)})`,
    { lateMs },
  )
}
