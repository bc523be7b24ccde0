import { A2Error } from '../../../shared/log/error-brand.ts'

export type InspectErrorCode = 'USAGE' | 'SOURCE_FAILED' | 'NO_EVENTS'

declare module '../../../shared/log/error-brand.ts' {
  interface A2Codes extends Record<InspectErrorCode, undefined> {}
}

/** Why inspect could not answer: bad arguments, a source it cannot read, an unknown session. */
export class InspectError extends A2Error<InspectErrorCode> {
  constructor(code: InspectErrorCode, message: string, options?: ErrorOptions) {
    super(code, message, options)
    this.name = 'InspectError'
  }
}
