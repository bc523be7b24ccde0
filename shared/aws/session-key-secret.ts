import type { SecretsManagerClientConfig } from '@aws-sdk/client-secrets-manager'
import { messageOf } from '../log/message-of.ts'
import { PipelineError } from './errors.ts'

/**
 * Reads the session key from Secrets Manager through Powertools Parameters
 * (loaded on first use, so functions that never check a token do not load
 * it). The capability keeps the key for the container's life: one read per
 * cold start.
 */
export async function readSessionKeySecret(
  secretId: string,
  clientConfig: SecretsManagerClientConfig = {},
): Promise<string> {
  const { SecretsProvider } = await import('@aws-lambda-powertools/parameters/secrets')
  const provider = new SecretsProvider({ clientConfig })
  let value: unknown
  try {
    value = await provider.get(secretId)
  } catch (error) {
    throw new PipelineError(
      'SECRET_UNREADABLE',
      `The session key secret ${secretId} could not be read: ${messageOf(error)}`,
      { cause: error },
    )
  }
  if (typeof value !== 'string' || value === '') {
    throw new PipelineError('SECRET_UNREADABLE', `The session key secret ${secretId} holds no text`)
  }
  return value
}
