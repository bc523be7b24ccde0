import { createGateway } from '@ai-sdk/gateway'
import { APICallError, RetryError, streamText } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { agent } from '../../../../shared/agent/index.ts'
import { modelErrorText } from '../../../../shared/agent/model-step/model-error.ts'
import { inputs } from '../../../../shared/ai.ts'
import { serveFetch } from '../../../../shared/node/serve.ts'
import { track, until, userMessage } from '../../../support/agent-log.ts'

/** An origin nothing listens on: a Gateway this machine cannot reach. */
async function closedOrigin(): Promise<string> {
  const server = await serveFetch(() => new Response(null))
  await server.close()
  return server.url
}

/** The error the real AI Gateway provider fails with when its base URL cannot be reached. */
async function gatewayFailure(baseURL: string): Promise<unknown> {
  const gateway = createGateway({ baseURL, apiKey: 'test-key' })
  let failure: unknown
  const result = streamText({
    model: gateway('openai/gpt-5.6-terra'),
    prompt: 'Hello',
    maxRetries: 0,
    onError: ({ error }) => {
      failure = error
    },
  })
  await result.consumeStream()
  return failure
}

describe('a model call that fails: its reason names where it went and why', () => {
  it('AI Gateway out of reach: the URL and the system error lead, not "Invalid error response format: Gateway request failed"', async () => {
    const origin = await closedOrigin()
    const failure = await gatewayFailure(`${origin}/v4/ai`)
    expect((failure as Error).message).toBe('Invalid error response format: Gateway request failed')
    const port = new URL(origin).port
    expect(modelErrorText(failure)).toBe(
      `Cannot reach the model's API at ${origin}/v4/ai/language-model: connect ECONNREFUSED 127.0.0.1:${port} (Invalid error response format: Gateway request failed)`,
    )
    // The AI SDK's retries wrap it once more; the cause is found under them.
    const retried = new RetryError({
      message: 'Failed after 3 attempts. Last error: Invalid error response format',
      reason: 'maxRetriesExceeded',
      errors: [failure, failure, failure],
    })
    expect(modelErrorText(retried)).toMatch(
      new RegExp(
        `^Cannot reach the model's API at ${origin}/v4/ai/language-model: connect ECONNREFUSED 127\\.0\\.0\\.1:${port} \\(Failed after 3 attempts`,
      ),
    )
  })

  it('a name that does not resolve says so', async () => {
    const failure = await gatewayFailure('https://no-such-gateway.invalid/v4/ai')
    expect(modelErrorText(failure)).toMatch(
      /^Cannot reach the model's API at https:\/\/no-such-gateway\.invalid\/v4\/ai\/language-model: getaddrinfo (ENOTFOUND|EAI_AGAIN) no-such-gateway\.invalid \(/,
    )
  })

  it('an answer it could not read names the URL and the status; any other error keeps its own message', async () => {
    const garbled = new APICallError({
      message: 'Bad Gateway',
      url: 'https://gateway.example/v4/ai/language-model',
      requestBodyValues: {},
      statusCode: 502,
    })
    const wrapped = Object.assign(
      new Error('Invalid error response format: Gateway request failed'),
      {
        cause: garbled,
      },
    )
    expect(modelErrorText(wrapped)).toBe(
      'Invalid error response format: Gateway request failed (https://gateway.example/v4/ai/language-model answered 502)',
    )
    const refused = new APICallError({
      message: 'The provided model identifier is invalid.',
      url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/x/converse-stream',
      requestBodyValues: {},
      statusCode: 400,
    })
    expect(modelErrorText(refused)).toBe('The provided model identifier is invalid.')
    expect(modelErrorText(new Error('plain'))).toBe('plain')
    expect(modelErrorText('thrown text')).toBe('thrown text')
  })

  it("the failed turn's state.active.error is that reason", async () => {
    const origin = await closedOrigin()
    // A provider whose connection fails at once (not retried), as one that cannot reach its API does.
    const model = new MockLanguageModelV4({
      doStream: async () => {
        throw new APICallError({
          message: `Cannot connect to API: connect ECONNREFUSED ${new URL(origin).host}`,
          url: `${origin}/v1/chat`,
          requestBodyValues: {},
          isRetryable: false,
        })
      },
    })
    const a = track(
      agent({ name: 'unreachable', model, logger: { info() {}, warn() {}, error() {} } }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Hello')))
    const { state } = await until(async () => {
      const read = await a.session('s').state()
      return read.state.active?.phase === 'failed' && read
    })
    expect(state.active?.error).toBe(
      `Cannot reach the model's API at ${origin}/v1/chat: connect ECONNREFUSED ${new URL(origin).host}`,
    )
  })
})
