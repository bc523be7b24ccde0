import { BaseProvider } from '@aws-lambda-powertools/parameters/base'
import type { GetOptionsInterface } from '@aws-lambda-powertools/parameters/base/types'
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets'
import { ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager'
import { describe, expect, it } from 'vitest'
import {
  loadSecrets,
  type ParameterReaders,
} from '../../../../shared/aws/lambda/cold-start-secrets.ts'

const GATEWAY_KEY_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:a2/gateway-key-AbCdEf'
const TOOL_KEY_ARN = 'arn:aws:ssm:us-east-1:123456789012:parameter/a2/tool-key'

/** A Powertools Parameters provider over a map: Powertools' own get() (caching, errors) around it. */
class FakeProvider extends BaseProvider {
  readonly reads: { name: string; options: unknown }[] = []
  readonly values: Record<string, string | Uint8Array>
  constructor(values: Record<string, string | Uint8Array>) {
    super({})
    this.values = values
  }
  // The SSM provider's options (decrypt) on Powertools' own get().
  override get(name: string, options?: GetOptionsInterface & { decrypt?: boolean }) {
    return super.get(name, options)
  }
  protected async _get(name: string, options?: unknown): Promise<string | Uint8Array | undefined> {
    this.reads.push({ name, options })
    return this.values[name]
  }
  protected async _getMultiple(): Promise<Record<string, unknown>> {
    throw new Error('not used')
  }
}

function fakes(values: Record<string, string | Uint8Array>) {
  const secretsManager = new FakeProvider(values)
  const ssm = new FakeProvider(values)
  let made = 0
  return {
    secretsManager,
    ssm,
    made: () => made,
    readers: async (): Promise<ParameterReaders> => {
      made++
      return { secretsManager, ssm }
    },
  }
}

const secretsEnv = (arns: Record<string, string>): Record<string, string | undefined> => ({
  A2_SECRETS: JSON.stringify(arns),
})

describe('loadSecrets (the functions read their secrets at cold start)', () => {
  it('sets each named variable from the store its ARN names: Secrets Manager, or SSM with decryption', async () => {
    const stores = fakes({ [GATEWAY_KEY_ARN]: 'gw-key', [TOOL_KEY_ARN]: 'tool-key' })
    const env = secretsEnv({ AI_GATEWAY_API_KEY: GATEWAY_KEY_ARN, TOOL_KEY: TOOL_KEY_ARN })
    expect(await loadSecrets(env, stores.readers)).toEqual(['AI_GATEWAY_API_KEY', 'TOOL_KEY'])
    expect(env.AI_GATEWAY_API_KEY).toBe('gw-key')
    expect(env.TOOL_KEY).toBe('tool-key')
    expect(stores.secretsManager.reads.map((read) => read.name)).toEqual([GATEWAY_KEY_ARN])
    expect(stores.ssm.reads).toEqual([{ name: TOOL_KEY_ARN, options: { decrypt: true } }])
  })

  it('reads nothing, and makes no client, when the construct named no secret for the function', async () => {
    const stores = fakes({})
    const env: Record<string, string | undefined> = {}
    expect(await loadSecrets(env, stores.readers)).toEqual([])
    expect(await loadSecrets(secretsEnv({}), stores.readers)).toEqual([])
    expect(stores.made()).toBe(0)
    expect(env).toEqual({})
  })

  it('fails the cold start with SECRET_UNREADABLE naming the variable and ARN, and sets no variable, when a secret cannot be read', async () => {
    // A real Powertools provider on a Secrets Manager client that answers as
    // Secrets Manager does for a secret that is not there.
    const client = new SecretsManagerClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    })
    client.middlewareStack.add(
      () => async () => {
        throw new ResourceNotFoundException({
          message: "Secrets Manager can't find the specified secret.",
          $metadata: { httpStatusCode: 400 },
        })
      },
      { step: 'initialize' },
    )
    const stores = fakes({ [TOOL_KEY_ARN]: 'tool-key' })
    const env = secretsEnv({ AI_GATEWAY_API_KEY: GATEWAY_KEY_ARN, TOOL_KEY: TOOL_KEY_ARN })
    const failure = loadSecrets(env, async () => ({
      secretsManager: new SecretsProvider({ awsSdkV3Client: client }),
      ssm: stores.ssm,
    }))
    await expect(failure).rejects.toMatchObject({
      name: 'PipelineError',
      code: 'SECRET_UNREADABLE',
      message: expect.stringContaining(`AI_GATEWAY_API_KEY: ${GATEWAY_KEY_ARN} could not be read`),
    })
    await expect(failure).rejects.toThrow(/can't find the specified secret/)
    expect(env.AI_GATEWAY_API_KEY).toBeUndefined()
    expect(env.TOOL_KEY).toBeUndefined()
  })

  it('refuses a secret that holds no text (binary or empty) with SECRET_UNREADABLE', async () => {
    for (const value of [new Uint8Array([1, 2]), '']) {
      const env = secretsEnv({ KEY: GATEWAY_KEY_ARN })
      await expect(
        loadSecrets(env, fakes({ [GATEWAY_KEY_ARN]: value }).readers),
      ).rejects.toMatchObject({
        code: 'SECRET_UNREADABLE',
        message: expect.stringContaining('KEY:'),
      })
      expect(env.KEY).toBeUndefined()
    }
  })

  it('refuses an A2_SECRETS that is not names to secret ARNs with MISSING_ENVIRONMENT, before reading anything', async () => {
    for (const raw of [
      'not json',
      JSON.stringify({ AI_GATEWAY_API_KEY: 'sk-a-value-not-an-arn' }),
      JSON.stringify({ A2_TABLE_NAME: GATEWAY_KEY_ARN }),
      JSON.stringify({ KEY: 'arn:aws:s3:::bucket/key' }),
    ]) {
      const stores = fakes({})
      await expect(loadSecrets({ A2_SECRETS: raw }, stores.readers)).rejects.toMatchObject({
        code: 'MISSING_ENVIRONMENT',
        message: expect.stringContaining('A2_SECRETS'),
      })
      expect(stores.made()).toBe(0)
    }
  })
})
