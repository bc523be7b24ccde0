import { A2Error } from '../log/error-brand.ts'

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
  /** A lane's work is held by a live attempt past the invocation's time: delivered again later. */
  | 'WORK_HELD'
  /** `erase()` in a function whose role may not erase sessions (the construct's `erase` prop). */
  | 'ERASE_NOT_GRANTED'

declare module '../log/error-brand.ts' {
  interface A2Codes extends Record<PipelineErrorCode, undefined> {}
}

/**
 * A failure of the AWS edge (a queue message, an environment variable, a
 * Lambda event) with a stable `code`; the log's own failures keep theirs.
 */
export class PipelineError extends A2Error<PipelineErrorCode> {
  constructor(code: PipelineErrorCode, message: string, options?: ErrorOptions) {
    super(code, message, options)
    this.name = 'PipelineError'
  }
}
