import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager'
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { environmentVariables } from '../../../../shared/aws/environment-variables.ts'
import { awsClientConfig, awsEndpoint } from '../../../support/aws.ts'

// The agent module the construct would bundle in: it records the key it
// sees when it loads, as an agent module that reads process.env does.
const seen = vi.hoisted(() => ({ keyWhenLoaded: undefined as string | undefined }))
vi.mock('a2-aws-agent-module', async () => {
  seen.keyWhenLoaded = process.env.AI_GATEWAY_API_KEY
  const { agent } = await import('../../../../shared/agent/index.ts')
  const { awsAgentParts } = await import('../../../../shared/aws/agent-environment.ts')
  const { store, dispatcher, scheduler } = awsAgentParts()
  return {
    default: agent({
      name: 'secrets',
      model: 'openai/gpt-5.6-terra',
      store,
      dispatcher,
      scheduler,
    }),
    authorize: undefined,
  }
})

// No hyphen before a last part of six characters: AWS reads a secret's partial
// ARN that ends that way as a full one (its random suffix), and finds nothing.
const unique = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`
const sm = new SecretsManagerClient(awsClientConfig())
const ssm = new SSMClient(awsClientConfig())
afterEach(() => {
  vi.unstubAllEnvs()
  vi.unstubAllGlobals()
  vi.restoreAllMocks()
  // Each test is a cold start: the entry point and the agent module load anew.
  vi.resetModules()
})
afterAll(() => {
  sm.destroy()
  ssm.destroy()
})

/** What the construct sets for a function (the pipeline's variables, the secrets' ARNs), and Lambda's globals. */
function coldStartEnvironment(secrets: Record<string, string>) {
  const endpoint = awsEndpoint()
  const variables = {
    ...environmentVariables({
      tableName: 'a2-table',
      queueUrls: {
        admission: 'https://sqs.example/admission',
        generation: 'https://sqs.example/generation',
        tools: 'https://sqs.example/tools',
        handlers: 'https://sqs.example/handlers',
      },
      ingressQueueUrl: 'https://sqs.example/ingress',
      timers: {
        queueUrl: 'https://sqs.example/timers',
        queueArn: 'arn:aws:sqs:us-east-1:123456789012:timers',
        scheduleGroup: 'a2',
        schedulerRoleArn: 'arn:aws:iam::123456789012:role/scheduler',
        deadLetterQueueArn: 'arn:aws:sqs:us-east-1:123456789012:scheduler-dlq',
      },
      agentExport: 'default',
      maxReceiveCount: 5,
      ...(endpoint === 'aws' ? {} : { endpoint }),
    }),
    A2_SECRETS: JSON.stringify(secrets),
  }
  for (const [name, value] of Object.entries(variables)) vi.stubEnv(name, value)
  vi.stubEnv('AWS_REGION', region)
  vi.stubEnv('AWS_ACCESS_KEY_ID', process.env.AWS_ACCESS_KEY_ID ?? 'test')
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', process.env.AWS_SECRET_ACCESS_KEY ?? 'test')
  vi.stubEnv('AI_GATEWAY_API_KEY', undefined)
  vi.stubEnv('TOOL_KEY', undefined)
  // Powertools Logger writes through the global console in dev mode.
  vi.stubEnv('POWERTOOLS_DEV', 'true')
  // Lambda's response streaming global, which the entry point wraps http with.
  vi.stubGlobal('awslambda', {
    streamifyResponse: (handler: unknown) => handler,
    HttpResponseStream: { from: (stream: unknown) => stream },
  })
  seen.keyWhenLoaded = undefined
}
const region = process.env.AWS_REGION ?? 'us-east-1'

describe('the Lambda entry point at cold start', () => {
  it('reads the secrets the construct named (a Secrets Manager secret by its partial ARN, an SSM SecureString) through Powertools Parameters before the agent module loads', async () => {
    const secret = await sm.send(
      new CreateSecretCommand({ Name: `a2/gateway-key-${unique}`, SecretString: 'gw-key-value' }),
    )
    // A secret the stack names by its name reaches the functions as its
    // partial ARN (no random suffix): Secrets Manager finds it by that.
    const partialArn = (secret.ARN as string).replace(/-[A-Za-z0-9]{6}$/, '')
    expect(partialArn).not.toBe(secret.ARN)
    const parameterName = `/a2/tool-key-${unique}`
    await ssm.send(
      new PutParameterCommand({
        Name: parameterName,
        Value: 'tool-key-value',
        Type: 'SecureString',
      }),
    )
    coldStartEnvironment({
      AI_GATEWAY_API_KEY: partialArn,
      TOOL_KEY: `arn:aws:ssm:${region}:123456789012:parameter${parameterName}`,
    })

    const entry = await import('../../../../functions/lambda.ts')

    expect(process.env.AI_GATEWAY_API_KEY).toBe('gw-key-value')
    expect(process.env.TOOL_KEY).toBe('tool-key-value')
    expect(seen.keyWhenLoaded).toBe('gw-key-value')
    expect(typeof entry.generationLane).toBe('function')
  })

  it('fails the cold start, before the agent module loads, with SECRET_UNREADABLE in the log when a named secret does not exist', async () => {
    const missing = `arn:aws:secretsmanager:${region}:123456789012:secret:a2/never-created-${unique}-AbCdEf`
    coldStartEnvironment({ AI_GATEWAY_API_KEY: missing })
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})

    await expect(import('../../../../functions/lambda.ts')).rejects.toMatchObject({
      code: 'SECRET_UNREADABLE',
      message: expect.stringContaining(`AI_GATEWAY_API_KEY: ${missing} could not be read`),
    })

    const lines = logged.mock.calls.map(([line]) => JSON.parse(String(line)))
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'ERROR',
        message: 'a2: cold start failed reading the secrets',
        code: 'SECRET_UNREADABLE',
        error: expect.stringContaining(missing),
      }),
    )
    expect(process.env.AI_GATEWAY_API_KEY).toBeUndefined()
    expect(seen.keyWhenLoaded).toBeUndefined()
  })
})
