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
  return async (operation) => {
    for (const check of defined) if (!(await check(operation))) return false
    return true
  }
}
