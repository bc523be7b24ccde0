/**
 * A wake-up says "session S may have work for lane L", nothing more: the
 * lane reads the log to find out what. Duplicates cost a read; a lost one is
 * recovered by the next (docs/architecture.md, principle 2).
 */
export interface WakeUp {
  sessionId: string
  lane: string
  /** Narrows the work, e.g. the tool call a tools wake-up is about. */
  key?: string
  /**
   * Where the news behind it is: the life and index of the last event that
   * made it, when the sender knows. Not sent: two senders of the same news
   * (the fast path and the stream router) derive the same deduplication ID
   * from it, so SQS delivers one; news of another life never collapses
   * with this one's.
   */
  at?: { life: string; index: number }
}

/** Wake-ups of one group run one at a time, in order (an SQS FIFO message group). */
export function wakeUpGroup(wakeUp: WakeUp): string {
  return wakeUp.key === undefined
    ? `${wakeUp.sessionId}\u0000${wakeUp.lane}`
    : `${wakeUp.sessionId}\u0000${wakeUp.lane}\u0000${wakeUp.key}`
}

/**
 * How a lane's run ended, when it did not fail: its work is done (or there
 * was none), or a live attempt elsewhere holds it (a claim) until
 * `retryAt`, epoch ms on the store's clock, when the run should look again.
 * Held work is no failure: it is not retried with backoff nor dead-lettered.
 * Only a real failure throws.
 */
export type RunOutcome = { kind: 'done' } | { kind: 'held'; retryAt: number }

export const DONE: RunOutcome = { kind: 'done' }

/** Delivers wake-ups to lane workers: in process when embedded, through SQS on AWS. */
export interface Dispatcher {
  wake(wakeUps: readonly WakeUp[]): Promise<void>
  /**
   * A durable dispatcher's promise: a wake-up whose run died (or whose send
   * was lost with its process) is delivered again within this many ms (on
   * SQS, the visibility lease and the stream router's batching window). A
   * reader then wakes a session to recover it only once its latest event is
   * older than that: younger work is still in its own wake-up's hands.
   * Unset (the embedded dispatcher, whose wake-ups die with the process), a
   * reader recovers whatever may be stuck.
   */
  readonly redeliversWithinMs?: number
}
