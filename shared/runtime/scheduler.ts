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
   * The log the timer was set in, by its life (and its first event's ID and
   * timestamp), when the session had one: such a timer fires only into that
   * life. Firing into an empty log (the session erased or expired since: an
   * SQS-delayed timer cannot be cancelled) or a life started over since, it
   * is dropped, so it brings nothing of an erased session back. Without it
   * (server code may set a timer on a new session) the timer fires either way.
   */
  setIn?: TimerLog
}

/**
 * A life of a session's log, for a timer: `life` (`StoredEvent.life`), and
 * the log's first event, which is what timers set before lives (without
 * `life`) recognise it by.
 */
export interface TimerLog {
  firstId: string
  firstAt: number
  life?: string
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
