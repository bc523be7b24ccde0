/**
 * How retries space out, in the caller's unit (milliseconds or seconds):
 * `initial`, doubled per attempt, at most `max`, then `jitter`:
 * - `none`: exactly that;
 * - `equal`: half of it fixed, half random, so clients dropped together do
 *   not come back in lockstep, yet none retries at once;
 * - `full`: a random share of all of it, to spread contenders widest.
 */
export interface BackoffPolicy {
  initial: number
  max: number
  jitter: 'none' | 'equal' | 'full'
}

/**
 * The wait before retry `attempt` (0 for the first).
 *
 * @example
 * backoff(attempt, { initial: 500, max: 30_000, jitter: 'equal' }) // 250-500 ms, then 500-1000 ms, ...
 */
export function backoff(
  attempt: number,
  { initial, max, jitter }: BackoffPolicy,
  random: () => number = Math.random,
): number {
  // Past 2^52 the product is at the cap anyway; stop before it overflows.
  const ceiling = Math.min(max, initial * 2 ** Math.min(Math.max(0, attempt), 52))
  if (jitter === 'none') return ceiling
  if (jitter === 'full') return random() * ceiling
  return ceiling / 2 + random() * (ceiling / 2)
}
