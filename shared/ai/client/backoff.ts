/** How a client waits between attempts (stream reconnects, push retries). */
export interface BackoffOptions {
  /** The first delay. Default: the server's `retry:` hint, else 500 ms. */
  initialDelayMs?: number
  /** The longest delay (default 30 s), so a long outage still retries twice a minute. */
  maxDelayMs?: number
}

export const DEFAULT_INITIAL_DELAY_MS = 500
export const DEFAULT_MAX_DELAY_MS = 30_000

/**
 * Exponential backoff with "equal jitter": half the delay is fixed, half
 * random, so many clients dropped by one server restart do not reconnect in
 * lockstep, yet none retries at once.
 *
 * @example
 * setTimeout(reconnect, backoffDelay(attempt, { initialDelayMs: 500 }))
 */
export function backoffDelay(
  attempt: number,
  { initialDelayMs = DEFAULT_INITIAL_DELAY_MS, maxDelayMs = DEFAULT_MAX_DELAY_MS }: BackoffOptions,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(maxDelayMs, initialDelayMs * 2 ** Math.max(0, attempt))
  return ceiling / 2 + random() * (ceiling / 2)
}
