import { A2Error } from '../../log/error-brand.ts'
import type { ErrorStatuses } from '../../log/error-statuses.ts'

declare module '../../log/error-brand.ts' {
  interface A2Codes {
    /** An erase refused while a turn runs (the agent's erase, `npx a2-aws erase`). */
    SESSION_ACTIVE: undefined
  }
}

/** The HTTP answer to an erase refused while a turn runs. */
export const SESSION_ERROR_STATUSES: ErrorStatuses<'SESSION_ACTIVE'> = { SESSION_ACTIVE: 409 }

/** An erase refused because a turn of the session is still running (pass `force` to erase anyway). */
export class SessionActiveError extends A2Error<'SESSION_ACTIVE'> {
  readonly sessionId: string

  constructor(sessionId: string, what: string) {
    super(
      'SESSION_ACTIVE',
      `Session "${sessionId}" is active (${what}): stop it first, or erase with force`,
    )
    this.name = 'SessionActiveError'
    this.sessionId = sessionId
  }
}
