import { backoff } from '../../timing/backoff.ts'

/**
 * How long an append without `expectedIndex` keeps trying after concurrent
 * appenders moved the session head first. Long enough to queue behind a
 * burst of writers on one session; short enough to answer an HTTP request.
 */
export const DEFAULT_APPEND_RETRY_MS = 10_000

const MIN_SLOT_MS = 10
const MAX_DELAY_MS = 2_000

/**
 * The wait before the next try after `losses` lost races in a row, given how
 * long the lost try took: a random delay up to that round trip times
 * 2^(losses-1), capped ("full jitter" in units of the store's own response
 * time, which grows when many writers queue in front of it). Retrying at
 * once makes every loser of a round race again for the next index, so N
 * writers cost ~N²/2 transactions; spreading them out over more than the
 * time the store needs to serve them lets most retries find the head free.
 */
export function appendRetryDelay(
  losses: number,
  roundTripMs: number,
  random: () => number = Math.random,
): number {
  const initial = Math.max(MIN_SLOT_MS, roundTripMs)
  return backoff(
    losses - 1,
    { baseDelayMs: initial, maxDelayMs: MAX_DELAY_MS, jitter: 'full' },
    random,
  )
}
