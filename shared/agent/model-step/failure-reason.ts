/** How much of a failure's message the log keeps: enough to read, never too much to store. */
const MAX_ERROR_LENGTH = 4_000

/** A failure's reason, short enough to store whatever the error said. */
export function clipped(error: string): string {
  return error.length > MAX_ERROR_LENGTH ? `${error.slice(0, MAX_ERROR_LENGTH)}…` : error
}

/** The reason a step fails with when the log refused what the model produced. */
export function unstorable(error: Error): string {
  return `A2 could not store the model's output, so the step failed (retry() runs it again): ${error.message}`
}
