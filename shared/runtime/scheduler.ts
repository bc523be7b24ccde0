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
   * The log the timer was set in, by its first event (ID and timestamp),
   * when the session had one: such a timer fires only into that log. Firing
   * into an empty log (the session erased or expired since: an SQS-delayed
   * timer cannot be cancelled) or one started over since, it is dropped, so
   * it brings nothing of an erased session back. Without it (server code may
   * set a timer on a new session) the timer fires either way.
   */
  setIn?: TimerLog
}

/** A log by its first event: a log erased and written again starts with another. */
export interface TimerLog {
  firstId: string
  firstAt: number
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
  /** Stops timers kept in this process (an embedded scheduler's), at shutdown. */
  close?(): void
}
