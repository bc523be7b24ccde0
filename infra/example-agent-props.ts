import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager'
import * as ssm from 'aws-cdk-lib/aws-ssm'
import type { Construct } from 'constructs'
import { BEDROCK_PREFIX } from '../shared/agent/model-step/bedrock-model-id.ts'
import type { A2AgentProps } from './a2-agent.ts'

/**
 * The example stack's settings, from the environment or the CDK context
 * (`npx cdk deploy -c A2_MODEL=...`):
 * - `A2_MODEL`: the example agent's model. `bedrock:<model or inference
 *   profile ID>` runs it on Amazon Bedrock, with the generation function
 *   granted exactly that model (no key); an AI Gateway ID needs the key.
 * - `A2_GATEWAY_KEY_SECRET`: the name of the Secrets Manager secret (or,
 *   starting with `/`, the SSM SecureString parameter) that holds the AI
 *   Gateway key, read at cold start into `AI_GATEWAY_API_KEY`.
 * - `A2_GATEWAY_URL`: another origin for AI Gateway (a proxy), passed to
 *   the functions as it is (`functions/example/gateway-origin.ts`).
 * - `A2_LAMBDA_CONCURRENCY_QUOTA`: the account's Lambda concurrency quota,
 *   when you know it (`lambdaConcurrencyQuota`: synth warns at 100 or less).
 * With neither model nor key, the example answers with its offline demo model.
 */
export interface ExampleSettings {
  A2_MODEL?: string
  A2_GATEWAY_KEY_SECRET?: string
  A2_GATEWAY_URL?: string
  A2_LAMBDA_CONCURRENCY_QUOTA?: string
}

/** The example agent's `A2Agent` props for these settings (the model, its grant, the key's secret). */
export function exampleAgentProps(
  scope: Construct,
  {
    A2_MODEL: model,
    A2_GATEWAY_KEY_SECRET: keySecret,
    A2_GATEWAY_URL: gatewayUrl,
    A2_LAMBDA_CONCURRENCY_QUOTA: quota,
  }: ExampleSettings,
): A2AgentProps {
  const environment = {
    ...(model ? { A2_MODEL: model } : {}),
    ...(gatewayUrl ? { A2_GATEWAY_URL: gatewayUrl } : {}),
  }
  return {
    entry: 'functions/example-agent.ts',
    ...(Object.keys(environment).length > 0 ? { environment } : {}),
    ...(model?.startsWith(BEDROCK_PREFIX) ? { bedrockModels: [model] } : {}),
    // The key is never in the template: the functions get the secret's ARN
    // and read its value at cold start.
    ...(keySecret ? { secrets: { AI_GATEWAY_API_KEY: gatewayKey(scope, keySecret) } } : {}),
    ...(quota ? { lambdaConcurrencyQuota: concurrencyQuota(quota) } : {}),
  }
}

function concurrencyQuota(value: string): number {
  const quota = Number(value)
  if (!Number.isInteger(quota) || quota < 1) {
    throw new Error(
      `a2: A2_LAMBDA_CONCURRENCY_QUOTA is the account's Lambda concurrency quota, a whole number (aws lambda get-account-settings --query AccountLimit.ConcurrentExecutions), not "${value}"`,
    )
  }
  return quota
}

function gatewayKey(scope: Construct, name: string) {
  return name.startsWith('/')
    ? ssm.StringParameter.fromSecureStringParameterAttributes(scope, 'GatewayKey', {
        parameterName: name,
      })
    : secretsmanager.Secret.fromSecretNameV2(scope, 'GatewayKey', name)
}
