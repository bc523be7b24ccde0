import { type A2Code, type A2Details, A2Error, isA2Error } from '../log/error-brand.ts'
import type { SomeErrorStatuses } from '../log/error-statuses.ts'
import { LOG_ERROR_STATUSES } from '../log/errors.ts'
import type { ProtocolMismatch } from '../log/wire-protocol.ts'

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
  | 'PROTOCOL_MISMATCH'
  | 'INTERNAL'

/** The details of the edge's codes that have some (sent as the body's `details`). */
interface HttpCodeDetails {
  /** The `maxBodyBytes` the body went over. */
  BODY_TOO_LARGE: { limitBytes: number }
  /** The request's protocol and the ones the server speaks: the page must reload. */
  PROTOCOL_MISMATCH: ProtocolMismatch
}

declare module '../log/error-brand.ts' {
  interface A2Codes
    extends Record<Exclude<HttpErrorCode, keyof HttpCodeDetails>, undefined>,
      HttpCodeDetails {}
}

/**
 * An error that knows its HTTP answer: a status and a JSON body with a code
 * (the edge's own, or any other layer's it answers for) and the code's
 * details. Its status is its own, so the edge's codes need no status table.
 */
export class HttpError extends A2Error {
  readonly status: number

  /** `details`: those of `code`, as its layer declares them (`A2Codes`). */
  constructor(status: number, code: A2Code, message: string, details?: A2Details<A2Code>) {
    super(code, message, { details })
    this.name = 'HttpError'
    this.status = status
  }
}

/**
 * The one place typed errors become responses. A code the `statuses` (the
 * merged tables of the layers under the endpoint; the log's by default)
 * give no status is a 500 that leaks nothing, as is any unknown error.
 * Errors are told by their brand and code, not their class, so those of
 * another copy of the package (an app's own store, say) get their status
 * too.
 */
export function errorResponse(
  error: unknown,
  statuses: SomeErrorStatuses = LOG_ERROR_STATUSES,
): Response {
  const http = answerOf(error, statuses)
  return Response.json(
    {
      error: {
        code: http.code,
        message: http.message,
        ...(hasAny(http.details) ? { details: http.details } : {}),
      },
    },
    { status: http.status, headers: { 'cache-control': 'no-store' } },
  )
}

function answerOf(error: unknown, statuses: SomeErrorStatuses): HttpError {
  if (isHttpError(error)) return error
  const status = isA2Error(error) ? statuses[error.code] : undefined
  return isA2Error(error) && status !== undefined
    ? new HttpError(status, error.code, error.message, error.details)
    : new HttpError(500, 'INTERNAL', 'The server failed to handle the request')
}

/**
 * An `HttpError` of any copy of the package. The class differs between
 * copies; the brand and the name do not.
 */
function isHttpError(error: unknown): error is HttpError {
  return isA2Error(error) && error.name === 'HttpError' && 'status' in error
}

/** Details worth a `details` field: an object with a field (none, or `{}`, send none). */
function hasAny(details: unknown): details is object {
  return typeof details === 'object' && details !== null && Object.keys(details).length > 0
}
