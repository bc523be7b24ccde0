import type { NewEvent } from '../log/event.ts'

/** A named one-time timer that appends `events` to a session at `at`. */
export interface Timer {
  sessionId: string
  /** The timer's identity within the session: same name and time, one timer. */
  name: string
  /** Epoch milliseconds. */
  at: number
  events: NewEvent[]
  /**
   * Set for a session that had a log: such a timer fires only into a log
   * that is still there. Firing into an empty log, it finds its session
   * erased or expired since (an SQS-delayed timer cannot be cancelled), and
   * is dropped, so it does not start the session over. Without it (server
   * code may set a timer on a new session) the timer fires either way.
   */
  requiresLog?: boolean
}

/**
 * Where timers live: in process when embedded, EventBridge Scheduler (or an
 * SQS delay) on AWS. `schedule` is idempotent for the same name and time;
 * the same name with another time is a `TimerConflictError`.
 */
export interface Scheduler {
  schedule(timer: Timer): Promise<void>
  /**
   * Cancels the session's pending timers (an erase: nothing may fire into
   * the erased session and start it over) and answers how many it
   * cancelled. Idempotent: a timer already gone (fired, or cancelled
   * before) counts nothing.
   */
  cancel(sessionId: string): Promise<number>
}
