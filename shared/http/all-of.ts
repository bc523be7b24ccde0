import type { Authorize } from './log-endpoint.ts'

/**
 * One `authorize` from several: an operation is allowed only if each allows
 * it, asked in order (the first refusal, or thrown error, ends it). Composes
 * a built-in check, such as a session capability's, with your own policy.
 *
 * @example
 * assistant.fetch(request, { authorize: allOf(sessions.authorize, onlyUserMessages) })
 */
export function allOf(...checks: readonly (Authorize | undefined)[]): Authorize {
  const defined = checks.filter((check): check is Authorize => check !== undefined)
  const all: Authorize = async (operation) => {
    for (const check of defined) if (!(await check(operation))) return false
    return true
  }
  const authenticators = defined.flatMap((check) =>
    check.authenticate ? [check.authenticate] : [],
  )
  // Each check's word on who is asking, in the same order.
  if (authenticators.length > 0) {
    all.authenticate = async (request, principal) => {
      for (const authenticate of authenticators) await authenticate(request, principal)
    }
  }
  return all
}
