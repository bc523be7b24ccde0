import { type BackoffPolicy, DEFAULT_RETRY_POLICY, type RetryPolicy } from '../timing/backoff.ts'

/** How a client waits between attempts (stream reconnects, push retries). */
export type BackoffOptions = Partial<Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>>

/**
 * A client's retries: a push is tried three times (after a network failure,
 * a 5xx or a 429; safe: every event has an ID), a stream reconnects for as
 * long as the client is open. The first wait is half a second (a stream's
 * is the server's `retry:` hint when it sent one); the longest is the
 * embedded lanes' 30 s, so a long outage is still retried twice a minute.
 */
export const CLIENT_RETRY_POLICY: RetryPolicy = {
  ...DEFAULT_RETRY_POLICY,
  maxAttempts: 3,
  baseDelayMs: 500,
}

/**
 * A client's backoff: doubling from the first delay, with "equal jitter"
 * (half fixed, half random), so many clients dropped by one server restart
 * do not reconnect in lockstep, yet none retries at once.
 */
export function clientBackoff({
  baseDelayMs = CLIENT_RETRY_POLICY.baseDelayMs,
  maxDelayMs = CLIENT_RETRY_POLICY.maxDelayMs,
}: BackoffOptions): BackoffPolicy {
  return { baseDelayMs, maxDelayMs, jitter: 'equal' }
}
