import { allOf } from '../../http/all-of.ts'
import { HttpError } from '../../http/http-error.ts'
import type { Authorize, FetchOptions } from '../../http/log-endpoint.ts'
import { type CapabilityKey, sessionCapability } from '../../http/session-capability.ts'

/**
 * How the deployed API checks callers (the construct's `auth` prop):
 * - `capability`: a session token signed with `key` on every request
 *   (`POST {}` opens a session and answers its token);
 * - `cognito` / `iam`: API Gateway verified the caller, and the agent
 *   module's `authorize` decides per session (without one, all is refused);
 * - `none`: only the module's `authorize`, if any (an explicit opt-out).
 */
export type HttpAuth =
  | { type: 'capability'; key: CapabilityKey; ttlSeconds?: number }
  | { type: 'cognito' }
  | { type: 'iam' }
  | { type: 'none' }

/** What `agent.fetch` gets for `auth`, composed with the agent module's own `authorize`. */
export function httpAccess(
  auth: HttpAuth,
  authorize: Authorize | undefined,
): Pick<FetchOptions, 'authorize' | 'openSession'> {
  switch (auth.type) {
    case 'capability': {
      const sessions = sessionCapability({
        key: auth.key,
        ...(auth.ttlSeconds === undefined ? {} : { ttlSeconds: auth.ttlSeconds }),
      })
      return { authorize: allOf(sessions.authorize, authorize), openSession: sessions.openSession }
    }
    case 'cognito':
    case 'iam':
      return { authorize: allOf(verifiedCaller(auth.type), authorize ?? noPolicy(auth.type)) }
    case 'none':
      return authorize ? { authorize } : {}
  }
}

/** API Gateway should have refused a request without a caller; refuse it here too. */
function verifiedCaller(type: 'cognito' | 'iam'): Authorize {
  const refuse = (): never => {
    throw new HttpError(401, 'TOKEN_MISSING', `The API expects a caller verified by ${type}`)
  }
  const check: Authorize = (operation) => operation.principal !== undefined || refuse()
  check.authenticate = (_request, principal) => {
    if (!principal) refuse()
  }
  return check
}

/** A verified caller is not yet a caller allowed this session: without a policy, no one is. */
function noPolicy(type: 'cognito' | 'iam'): Authorize {
  return (operation) => {
    throw new HttpError(
      403,
      'FORBIDDEN',
      `The API verifies callers with ${type}, but the agent module exports no authorize to say who may ${operation.type} which session`,
    )
  }
}
