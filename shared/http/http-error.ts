import { type A2Code, A2Error, isA2Error } from '../log/error-brand.ts'

/** Codes the HTTP edge adds to the log's own. */
export type HttpErrorCode =
  | 'MALFORMED_JSON'
  | 'MALFORMED_REQUEST'
  | 'BODY_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'METHOD_NOT_ALLOWED'
  | 'FORBIDDEN'
  | 'TOKEN_MISSING'
  | 'TOKEN_INVALID'
  | 'TOKEN_EXPIRED'
  | 'SERVER_EVENT_REFUSED'
  | 'UNKNOWN_EVENT_TYPE'
  | 'INTERNAL'

declare module '../log/error-brand.ts' {
  interface A2Codes extends Record<HttpErrorCode, true> {}
}

/**
 * An error that knows its HTTP answer: a status and a JSON body with a code
 * (the edge's own, or any other layer's it answers for).
 */
export class HttpError extends A2Error {
  readonly status: number
  readonly details: Record<string, unknown> | undefined

  constructor(status: number, code: A2Code, message: string, details?: Record<string, unknown>) {
    super(code, message)
    this.name = 'HttpError'
    this.status = status
    this.details = details
  }
}

/**
 * The answer to each code the layers below the edge throw, by name: a code
 * with no status here is a 500 (the server's fault, not the request's).
 */
const STATUS_OF: Readonly<Partial<Record<A2Code, number>>> = {
  INVALID_EVENT: 400,
  RESERVED_EVENT_ID: 400,
  INVALID_SESSION_ID: 400,
  APPEND_CONFLICT: 409,
  // Only an append with an expected index conflicts; one without it waited
  // its turn and ran out of time, which a retry can fix.
  APPEND_CONTENDED: 503,
  // Writes kept landing under an erase; once the session's work stops, erasing again finishes it.
  ERASE_CONTENDED: 503,
  INVALID_APPEND: 500,
  PARTIAL_DUPLICATE_BATCH: 409,
  EVENT_TOO_LARGE: 413,
  BATCH_TOO_LARGE: 413,
  CURSOR_CONFLICT: 409,
  FENCED_OUT: 409,
  LIFE_ENDED: 409,
  CLAIM_HELD: 409,
  TIMER_CONFLICT: 409,
  INVALID_TIMER: 400,
  NO_HANDLER_CONTEXT: 500,
  INDEX_OUT_OF_RANGE: 400,
  SESSION_ACTIVE: 409,
  SESSION_NOT_EMPTY: 409,
  INVALID_EXPORT: 400,
  STEP_RESULT_TOO_LARGE: 500,
  // The server's configuration, never the request's: an agent made with them fails at startup or in its steps.
  UNKNOWN_HARNESS: 500,
  HARNESS_UNAVAILABLE: 500,
}

/**
 * The one place typed errors become responses. Unknown errors are 500s that
 * leak nothing. Errors are told by their brand and code, not their class, so
 * those of another copy of the package (an app's own store, say) get their
 * status too.
 */
export function errorResponse(error: unknown): Response {
  const http = answerOf(error)
  return Response.json(
    {
      error: {
        code: http.code,
        message: http.message,
        ...(http.details ? { details: http.details } : {}),
      },
    },
    { status: http.status, headers: { 'cache-control': 'no-store' } },
  )
}

function answerOf(error: unknown): HttpError {
  if (isHttpError(error)) return error
  const status = isA2Error(error) ? STATUS_OF[error.code] : undefined
  return isA2Error(error) && status !== undefined
    ? new HttpError(status, error.code, error.message, detailsOf(error))
    : new HttpError(500, 'INTERNAL', 'The server failed to handle the request')
}

/**
 * An `HttpError` of any copy of the package. The class differs between
 * copies; the brand and the name do not.
 */
function isHttpError(error: unknown): error is HttpError {
  return isA2Error(error) && error.name === 'HttpError'
}

function detailsOf(error: Error): Record<string, unknown> | undefined {
  const { eventType, path, duplicateIds, expectedIndex, actualIndex, limitBytes, eventId } =
    error as Error & Record<string, unknown>
  const details = Object.fromEntries(
    Object.entries({
      eventType,
      path,
      duplicateIds,
      expectedIndex,
      actualIndex,
      limitBytes,
      eventId,
    }).filter(([, value]) => value !== undefined),
  )
  return Object.keys(details).length > 0 ? details : undefined
}
