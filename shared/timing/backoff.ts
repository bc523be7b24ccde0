/**
 * How failed work is tried again: the first retry `baseDelayMs` after the
 * failure, each wait after that twice the one before, at most `maxDelayMs`,
 * and given up after `maxAttempts` tries in a row. Every retry of this
 * package spells its policy with this type (the embedded lanes', a client's
 * reconnects and pushes, the SQS lanes' redeliveries), or a `Pick` of it
 * where the attempts are counted elsewhere (SQS's `maxReceiveCount`).
 */
export interface RetryPolicy {
  /** Tries in a row, the first included, before the work is given up. */
  maxAttempts: number
  /** The wait before the first retry (ms). */
  baseDelayMs: number
  /** The longest wait (ms). */
  maxDelayMs: number
}

/**
 * The embedded lanes' (`agent({ retry })` overrides any of it): five tries,
 * the four retries within 1.5 s of the first failure. A client's policy
 * starts from it (`CLIENT_RETRY_POLICY`).
 */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 100,
  maxDelayMs: 30_000,
}

/**
 * What `backoff()` reads of a policy: its waits, and how each is spread:
 * - `none`: exactly that;
 * - `equal`: half of it fixed, half random, so clients dropped together do
 *   not come back in lockstep, yet none retries at once;
 * - `full`: a random share of all of it, to spread contenders widest.
 */
export type BackoffPolicy = Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'> & {
  jitter: 'none' | 'equal' | 'full'
}

/**
 * The wait before retry `attempt` (0 for the first).
 *
 * @example
 * backoff(attempt, { baseDelayMs: 500, maxDelayMs: 30_000, jitter: 'equal' }) // 250-500 ms, then 500-1000 ms, ...
 */
export function backoff(
  attempt: number,
  { baseDelayMs, maxDelayMs, jitter }: BackoffPolicy,
  random: () => number = Math.random,
): number {
  // Past 2^52 the product is at the cap anyway; stop before it overflows.
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.min(Math.max(0, attempt), 52))
  if (jitter === 'none') return ceiling
  if (jitter === 'full') return random() * ceiling
  return ceiling / 2 + random() * (ceiling / 2)
}
