import type { BackoffPolicy } from '../../timing/backoff.ts'

/** How a client waits between attempts (stream reconnects, push retries). */
export interface BackoffOptions {
  /** The first delay. Default: the server's `retry:` hint, else 500 ms. */
  initialDelayMs?: number
  /** The longest delay (default 30 s), so a long outage still retries twice a minute. */
  maxDelayMs?: number
}

export const DEFAULT_INITIAL_DELAY_MS = 500
const DEFAULT_MAX_DELAY_MS = 30_000

/**
 * A client's backoff: doubling from the first delay, with "equal jitter"
 * (half fixed, half random), so many clients dropped by one server restart
 * do not reconnect in lockstep, yet none retries at once.
 */
export function clientBackoff({
  initialDelayMs = DEFAULT_INITIAL_DELAY_MS,
  maxDelayMs = DEFAULT_MAX_DELAY_MS,
}: BackoffOptions): BackoffPolicy {
  return { initial: initialDelayMs, max: maxDelayMs, jitter: 'equal' }
}
