import { Stack } from 'aws-cdk-lib'
import type * as lambda from 'aws-cdk-lib/aws-lambda'
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager'
import type * as ssm from 'aws-cdk-lib/aws-ssm'
import type { Construct } from 'constructs'
import { ENVIRONMENT_VARIABLES, SECRET_VARIABLE } from '../shared/aws/environment-variables.ts'
import type { QueueFunction } from '../shared/aws/pipeline-functions.ts'

/** Where a secret lives: a Secrets Manager secret, or an SSM parameter (a SecureString for a key). */
export type SecretSource = secretsmanager.ISecret | ssm.IParameter

/** The construct's functions, by the names `A2Agent.functions` uses. */
export type AgentFunctionName = 'http' | 'stream' | 'router' | QueueFunction

/**
 * A secret for the functions: its source alone (read by the generation
 * function, the one that calls models), or with the functions that read it
 * (`tools` for a key a tool uses).
 */
export type AgentSecret =
  | SecretSource
  | { source: SecretSource; functions: readonly AgentFunctionName[] }

/** By default a secret is a model key, and only the generation function calls models. */
const DEFAULT_SECRET_READERS: readonly AgentFunctionName[] = ['generation']

/**
 * Grants each function read on exactly the secrets it is named for and
 * passes their ARNs (never their values) in `A2_SECRETS`, which the
 * functions' entry point reads at cold start into variables of the same
 * names (see shared/aws/lambda/cold-start-secrets.ts). Throws a `TypeError`
 * for a name that is not a variable name, starts with `A2_`, or is also set
 * in `environment`.
 */
export function grantSecrets(
  scope: Construct,
  functions: Record<AgentFunctionName, lambda.Function>,
  secrets: Readonly<Record<string, AgentSecret>>,
  environment: Readonly<Record<string, string>>,
): void {
  const perFunction = new Map<AgentFunctionName, Record<string, string>>()
  for (const [name, secret] of Object.entries(secrets)) {
    if (!SECRET_VARIABLE.test(name)) {
      throw new TypeError(
        `secrets: "${name}" is not an environment variable name, or starts with A2_ (the construct's own)`,
      )
    }
    if (Object.hasOwn(environment, name)) {
      throw new TypeError(`secrets: "${name}" is also in environment; a secret's value never is`)
    }
    const { source, functions: readers } =
      'source' in secret ? secret : { source: secret, functions: DEFAULT_SECRET_READERS }
    for (const reader of new Set(readers)) {
      const fn = functions[reader]
      if (!fn) throw new TypeError(`secrets: "${name}" names no function "${reader}"`)
      source.grantRead(fn)
      perFunction.set(reader, { ...perFunction.get(reader), [name]: arnOf(source) })
    }
  }
  for (const [reader, arns] of perFunction) {
    functions[reader].addEnvironment(
      ENVIRONMENT_VARIABLES.secrets,
      Stack.of(scope).toJsonString(arns),
    )
  }
}

function arnOf(source: SecretSource): string {
  return 'secretArn' in source ? source.secretArn : source.parameterArn
}
