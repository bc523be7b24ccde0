import { brandA2Error } from '../log/error-brand.ts'

/** Stable codes for what the AWS pipeline refuses or fails to do. */
export type PipelineErrorCode =
  | 'MALFORMED_WAKE_UP'
  | 'WRONG_LANE'
  | 'MALFORMED_INGRESS_MESSAGE'
  | 'MALFORMED_TIMER_MESSAGE'
  | 'MALFORMED_STREAM_RECORD'
  | 'SEND_FAILED'
  | 'MISSING_ENVIRONMENT'
  | 'INVALID_AGENT_MODULE'
  | 'MALFORMED_HTTP_EVENT'
  | 'TIMER_TOO_LARGE'
  | 'SECRET_UNREADABLE'
  | 'ERASE_NOT_GRANTED'

/**
 * A failure of the AWS edge (a queue message, an environment variable, a
 * Lambda event) with a stable `code`; the log's own failures stay `A2Error`s.
 */
export class PipelineError extends Error {
  readonly code: PipelineErrorCode

  constructor(code: PipelineErrorCode, message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'PipelineError'
    this.code = code
    brandA2Error(this, 'pipeline')
  }
}
