import { z } from 'zod'
import { messageOf } from '../../log/message-of.ts'
import { ENVIRONMENT_VARIABLES, SECRET_VARIABLE } from '../environment-variables.ts'
import { PipelineError } from '../errors.ts'

/** What reads secrets: Powertools Parameters providers, or a test's stand-ins. */
export interface ParameterReaders {
  secretsManager: { get(name: string): Promise<unknown> }
  ssm: { get(name: string, options: { decrypt: true }): Promise<unknown> }
}

const secretArns = z.record(
  z.string().regex(SECRET_VARIABLE),
  z
    .string()
    .regex(/^arn:[^:]+:(secretsmanager|ssm):/, 'a Secrets Manager secret or SSM parameter ARN'),
)

/**
 * Reads the secrets the `A2Agent` construct named for this function
 * (`A2_SECRETS`: a JSON object of variable names to Secrets Manager secret
 * or SSM parameter ARNs, never values) and sets each variable in `env`,
 * where model providers read their keys (`AI_GATEWAY_API_KEY`). The
 * functions' entry point awaits it once, at cold start, before it loads the
 * agent module, so an agent module that reads `process.env` when it loads
 * sees them too. Without `A2_SECRETS` it reads nothing. A secret that cannot
 * be read, or is not text, fails the cold start with `SECRET_UNREADABLE`
 * naming the variable and the ARN.
 */
export async function loadSecrets(
  env: Record<string, string | undefined> = process.env,
  readers: () => Promise<ParameterReaders> = () => powertoolsReaders(env),
): Promise<string[]> {
  const variable = ENVIRONMENT_VARIABLES.secrets
  const raw = env[variable]
  if (!raw) return []
  const parsed = secretArns.safeParse(parseJson(raw))
  if (!parsed.success) {
    throw new PipelineError(
      'MISSING_ENVIRONMENT',
      `${variable} must be a JSON object of variable names to secret or parameter ARNs (the A2Agent construct's secrets prop sets it): ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ')}`,
    )
  }
  const entries = Object.entries(parsed.data)
  if (entries.length === 0) return []
  const { secretsManager, ssm } = await readers()
  const values = await Promise.all(
    entries.map(async ([name, arn]) => {
      const inSsm = arn.split(':')[2] === 'ssm'
      let value: unknown
      try {
        value = inSsm ? await ssm.get(arn, { decrypt: true }) : await secretsManager.get(arn)
      } catch (error) {
        throw new PipelineError(
          'SECRET_UNREADABLE',
          `${name}: ${arn} could not be read: ${messageOf(error)}`,
          { cause: error },
        )
      }
      if (typeof value !== 'string' || value === '') {
        throw new PipelineError(
          'SECRET_UNREADABLE',
          `${name}: ${arn} holds no text (a secret string or a String/SecureString parameter)`,
        )
      }
      return [name, value] as const
    }),
  )
  for (const [name, value] of values) env[name] = value
  return values.map(([name]) => name)
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}

/** Powertools Parameters providers, loaded only when a function has secrets to read. */
async function powertoolsReaders(
  env: Record<string, string | undefined>,
): Promise<ParameterReaders> {
  const [{ SecretsProvider }, { SSMProvider }] = await Promise.all([
    import('@aws-lambda-powertools/parameters/secrets'),
    import('@aws-lambda-powertools/parameters/ssm'),
  ])
  const endpoint = env[ENVIRONMENT_VARIABLES.endpoint]
  const clientConfig = endpoint ? { endpoint } : {}
  return {
    secretsManager: new SecretsProvider({ clientConfig }),
    ssm: new SSMProvider({ clientConfig }),
  }
}
