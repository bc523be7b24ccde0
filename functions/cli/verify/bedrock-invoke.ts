import type { InvokeModel } from './models-check.ts'

/** AWS credentials as an SDK client's `config.credentials()` resolves them. */
interface AwsCredentials {
  accessKeyId: string
  secretAccessKey: string
  sessionToken?: string
}

export interface BedrockInvokerOptions {
  /** The stack's region: where the agent's functions call Bedrock. */
  region: string
  /** The caller's credentials (the environment's, as the other AWS checks use). */
  credentials?: () => Promise<AwsCredentials>
  /** Another Bedrock Runtime endpoint (a double on loopback in tests). */
  baseURL?: string
}

/**
 * One-token calls through the AI SDK's Bedrock provider, as the agent's
 * generation function makes its model calls (ConverseStream, authorized as
 * `bedrock:InvokeModelWithResponseStream`), with at most one output token.
 *
 * @example
 * const invoke = bedrockInvoker({ region: 'us-east-1' })
 * await invoke('us.anthropic.claude-sonnet-4-5-20250929-v1:0')
 */
export function bedrockInvoker(options: BedrockInvokerOptions): InvokeModel {
  return async (modelId) => {
    // Loaded on first use: a stack without Bedrock models never evaluates it.
    const { createAmazonBedrock } = await import('@ai-sdk/amazon-bedrock')
    const credentials = options.credentials
    const bedrock = createAmazonBedrock({
      region: options.region,
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      ...(credentials
        ? {
            credentialProvider: async () => {
              const { accessKeyId, secretAccessKey, sessionToken } = await credentials()
              return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) }
            },
          }
        : {}),
    })
    const { stream } = await bedrock(modelId).doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'Say OK.' }] }],
      maxOutputTokens: 1,
    })
    const reader = stream.getReader()
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return
        if (value.type === 'error') throw value.error
      }
    } finally {
      reader.releaseLock()
    }
  }
}
