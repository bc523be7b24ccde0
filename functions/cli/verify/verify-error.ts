import { A2Error } from '../../../shared/log/error-brand.ts'

export type VerifyErrorCode =
  | 'USAGE'
  | 'STACK_NOT_FOUND'
  | 'NO_VERIFY_OUTPUT'
  | 'AGENT_REQUIRED'
  | 'AGENT_NOT_FOUND'
  | 'BAD_VERIFY_OUTPUT'

declare module '../../../shared/log/error-brand.ts' {
  interface A2Codes extends Record<VerifyErrorCode, undefined> {}
}

/** Why verify could not start: bad arguments, or a stack it cannot read an agent from. */
export class VerifyError extends A2Error<VerifyErrorCode> {
  constructor(code: VerifyErrorCode, message: string, options?: ErrorOptions) {
    super(code, message, options)
    this.name = 'VerifyError'
  }
}
