import type { HttpErrorCode } from '../http/http-error.ts'
import { type A2Code, type A2Details, A2Error, isA2Error } from '../log/error-brand.ts'
import type { A2ErrorCode } from '../log/errors.ts'
import { messageOf } from '../log/message-of.ts'

/**
 * The codes a server answers with, as the HTTP edge and the log name them.
 * Imported as types, so that a browser's program, which loads no server
 * code, knows them too (`hasA2Code(error, 'FORBIDDEN')`).
 */
type ServerCode = HttpErrorCode | A2ErrorCode

/** Codes a client adds to the server's: the request never got a JSON answer. */
export type AgentClientErrorCode = 'NETWORK_ERROR' | 'BAD_RESPONSE'

declare module '../log/error-brand.ts' {
  interface A2Codes extends Record<AgentClientErrorCode, undefined> {}
}

/**
 * A failed request to an agent's endpoint. `code` is the server's error code
 * (`PARTIAL_DUPLICATE_BATCH`, `FORBIDDEN`, ...) or `NETWORK_ERROR` when no
 * answer came; `status` is the HTTP status, 0 for a network failure;
 * `details` are the code's, as the server sent them.
 *
 * @example
 * try {
 *   await session.sendMessage('Hi')
 * } catch (error) {
 *   if (hasA2Code(error, 'FORBIDDEN')) signIn()
 * }
 */
export class AgentClientError extends A2Error {
  readonly status: number

  constructor(
    code: A2Code,
    status: number,
    message: string,
    options: { details?: A2Details<A2Code>; cause?: unknown } = {},
  ) {
    super(code, message, {
      details: options.details,
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    })
    this.name = 'AgentClientError'
    this.status = status
  }

  /** Worth sending again: nothing answered, or the server failed or asked us to slow down. */
  get retryable(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500
  }
}

/** Reads an error answer (`{ error: { code, message, details? } }`) into a typed error. */
export async function errorFromResponse(response: Response): Promise<AgentClientError> {
  const body = (await response.json().catch(() => undefined)) as
    | { error?: { code?: unknown; message?: unknown; details?: unknown } }
    | undefined
  const error = body?.error
  if (typeof error?.code !== 'string') {
    return new AgentClientError(
      'BAD_RESPONSE',
      response.status,
      `The agent answered ${response.status} ${response.statusText}`.trim(),
    )
  }
  return new AgentClientError(
    error.code as ServerCode,
    response.status,
    typeof error.message === 'string' ? error.message : error.code,
    // The server sends a code's details as its layer declares them (A2Codes).
    typeof error.details === 'object' && error.details !== null
      ? { details: error.details as A2Details<ServerCode> }
      : {},
  )
}

/** A fetch that threw (offline, refused, reset) as a typed error. */
export function networkError(cause: unknown): AgentClientError {
  return new AgentClientError(
    'NETWORK_ERROR',
    0,
    `Could not reach the agent: ${messageOf(cause)}`,
    {
      cause,
    },
  )
}

/** Whether a failed request is worth sending again (`retryable`), told by the brand, not the class. */
export function isRetryable(error: unknown): boolean {
  return isA2Error(error) && (error as Partial<AgentClientError>).retryable === true
}
