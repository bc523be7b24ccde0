/**
 * The two INFO lines the HTTP handler writes for each GET stream, with the
 * session ID (and, when it ends, `durationMs` and `reason`): an operator (and
 * `npm run verify`) ties an SSE connection to its invocation and its REPORT
 * through them.
 */
export const STREAM_OPENED = 'a2: stream opened'
export const STREAM_ENDED = 'a2: stream ended'

/** Why a GET stream ended: its client left, the Lambda deadline came, or the response ended. */
export type StreamEndReason = 'client gone' | 'deadline' | 'end'
