import { hasA2Code } from './error-brand.ts'

/**
 * The codes with which a store refuses events for what they are, not for
 * when they came: an invalid or oversized event, an ID already taken by
 * other content. Writing the same events again fails the same way, so the
 * writer must give up on them (a model step fails with the reason) rather
 * than retry, which only repeats the work that produced them.
 */
const CONTENT_REFUSALS = [
  'INVALID_EVENT',
  'EVENT_TOO_LARGE',
  'BATCH_TOO_LARGE',
  'PARTIAL_DUPLICATE_BATCH',
  'RESERVED_EVENT_ID',
] as const

/**
 * Whether an append failed for its events' content (see `CONTENT_REFUSALS`).
 *
 * @example
 * if (isContentRefusal(error)) return fail(`A2 could not store the model's output: ${error.message}`)
 */
export function isContentRefusal(error: unknown): error is Error {
  return CONTENT_REFUSALS.some((code) => hasA2Code(error, code))
}
