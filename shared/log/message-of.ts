/**
 * What a caught value says: an error's message, or the value as text (code
 * may throw anything, a string or `undefined` too).
 *
 * @example
 * logger.warn(`a2: the batch will be retried: ${messageOf(error)}`)
 */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
