// No SDK imports: the CDK construct reads these names at synth time.

import { PipelineError } from './errors.ts'
import type { HttpAuth } from './lambda/http-access.ts'

/** How the API checks callers, as the construct's `auth` prop sets it on the HTTP functions. */
export const AUTH_VARIABLES = {
  /** `capability` (the default when unset), `cognito`, `iam` or `none`. */
  mode: 'A2_AUTH',
  /** The Secrets Manager secret (ARN or name) holding the session key, for `capability`. */
  sessionKeySecret: 'A2_SESSION_KEY_SECRET',
  /** Optional: a session token's lifetime in seconds. */
  sessionTtlSeconds: 'A2_SESSION_TTL_SECONDS',
} as const

const AUTH_MODES = ['capability', 'cognito', 'iam', 'none'] as const
type AuthMode = (typeof AUTH_MODES)[number]

/**
 * The API's auth from the environment. Unset means `capability`, so a
 * function deployed without the construct's variables refuses strangers
 * rather than serving them; `capability` without its secret fails loudly.
 * `readSecret` reads the key once, when the first request needs it.
 */
export function readHttpAuth(
  env: Record<string, string | undefined>,
  readSecret: (secretId: string) => Promise<string>,
): HttpAuth {
  const mode = env[AUTH_VARIABLES.mode] ?? 'capability'
  if (!(AUTH_MODES as readonly string[]).includes(mode)) {
    throw new PipelineError(
      'MISSING_ENVIRONMENT',
      `${AUTH_VARIABLES.mode} is "${mode}"; expected one of ${AUTH_MODES.join(', ')}`,
    )
  }
  if (mode !== 'capability') return { type: mode as Exclude<AuthMode, 'capability'> }
  const secretId = env[AUTH_VARIABLES.sessionKeySecret]
  if (!secretId) {
    throw new PipelineError(
      'MISSING_ENVIRONMENT',
      `${AUTH_VARIABLES.sessionKeySecret} is not set: session tokens need a key from Secrets Manager (the A2Agent construct sets it), or set ${AUTH_VARIABLES.mode} to another mode`,
    )
  }
  const ttl = env[AUTH_VARIABLES.sessionTtlSeconds]
  const ttlSeconds = ttl === undefined ? undefined : Number(ttl)
  if (ttlSeconds !== undefined && !(Number.isSafeInteger(ttlSeconds) && ttlSeconds > 0)) {
    throw new PipelineError(
      'MISSING_ENVIRONMENT',
      `${AUTH_VARIABLES.sessionTtlSeconds} is "${ttl}"; expected a whole number of seconds`,
    )
  }
  return {
    type: 'capability',
    key: () => readSecret(secretId),
    ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
  }
}
