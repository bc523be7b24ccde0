export type VerifyErrorCode =
  | 'USAGE'
  | 'STACK_NOT_FOUND'
  | 'NO_VERIFY_OUTPUT'
  | 'AGENT_REQUIRED'
  | 'AGENT_NOT_FOUND'
  | 'BAD_VERIFY_OUTPUT'

/** Why verify could not start: bad arguments, or a stack it cannot read an agent from. */
export class VerifyError extends Error {
  readonly code: VerifyErrorCode
  constructor(code: VerifyErrorCode, message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'VerifyError'
    this.code = code
  }
}
