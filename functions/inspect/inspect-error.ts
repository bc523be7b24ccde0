export type InspectErrorCode = 'USAGE' | 'SOURCE_FAILED' | 'NO_EVENTS'

/** Why inspect could not answer: bad arguments, a source it cannot read, an unknown session. */
export class InspectError extends Error {
  readonly code: InspectErrorCode
  constructor(code: InspectErrorCode, message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'InspectError'
    this.code = code
  }
}
