import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock'
import type { LanguageModelV4StreamPart, LanguageModelV4Usage } from '@ai-sdk/provider'
import { APICallError, jsonSchema, stepCountIs, streamText, tool } from 'ai'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { agent } from '../../../shared/agent/index.ts'
import { inputs } from '../../../shared/ai.ts'
import { type BedrockDouble, bedrockDouble } from '../../../shared/testing/bedrock-double.ts'
import { reasoning, type Script, text, toolCalls } from '../../../shared/testing/model-script.ts'
import { eventsOf, textOf, track, until, userMessage } from '../../support/agent-log.ts'
import { chunkTypes, streamedText, uiChunks } from '../../support/ui-chunks.ts'

const SONNET = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0'
const usage: LanguageModelV4Usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
}
const search = tool({
  description: 'Search the docs',
  inputSchema: jsonSchema<{ q: string }>({
    type: 'object',
    properties: { q: { type: 'string' } },
    required: ['q'],
  }),
  execute: async ({ q }) => ({ hits: [`${q}.md`] }),
})

let bedrock: BedrockDouble | undefined
afterEach(async () => {
  await bedrock?.close()
  bedrock = undefined
})

async function serve(
  script: Script<BedrockDouble['calls'][number]>,
  options: { chunkDelayMs?: number } = {},
): Promise<BedrockDouble> {
  bedrock = await bedrockDouble({ script, ...options })
  return bedrock
}

/** The errors a stream reported, as `fullStream` gives them. */
async function streamErrors(result: {
  fullStream: AsyncIterable<{ type: string; error?: unknown }>
}): Promise<unknown[]> {
  const errors: unknown[] = []
  for await (const part of result.fullStream) {
    if (part.type === 'error') errors.push(part.error)
  }
  return errors
}

describe('bedrockDouble() through the real @ai-sdk/amazon-bedrock provider', () => {
  it('streams a text answer as ConverseStream events, and records the call normalized and as sent', async () => {
    const double = await serve([text('Hello from Bedrock', { chunks: 3 })])
    const result = streamText({
      model: double.provider(SONNET),
      system: 'Be brief.',
      prompt: 'Hi there',
    })
    const chunks = await uiChunks(result.toUIMessageStream())
    expect(chunkTypes(chunks)).toEqual([
      'start',
      'start-step',
      'text-start',
      'text-delta',
      'text-delta',
      'text-delta',
      'text-end',
      'finish-step',
      'finish',
    ])
    expect(streamedText(chunks)).toBe('Hello from Bedrock')
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' })
    expect(double.calls).toHaveLength(1)
    const [call] = double.calls
    expect(call).toMatchObject({
      modelId: SONNET,
      system: 'Be brief.',
      messages: [{ role: 'user', text: 'Hi there' }],
      tools: [],
    })
    expect(call?.body.messages).toEqual([{ role: 'user', content: [{ text: 'Hi there' }] }])
    expect(call?.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIABEDROCKDOUBLE\/\d{8}\/us-east-1\/bedrock\/aws4_request,/,
    )
  })

  it('streams each part chunkDelayMs after the one before, so a text in deltas arrives over time', async () => {
    const double = await serve([text('one two three four five', { chunks: 5 })], {
      chunkDelayMs: 40,
    })
    const started = Date.now()
    const arrivals: number[] = []
    for await (const _ of streamText({ model: double.provider(SONNET), prompt: 'Slowly' })
      .textStream) {
      arrivals.push(Date.now() - started)
    }
    expect(arrivals).toHaveLength(5)
    // Sent 40 ms apart: over at least most of 160 ms (a loaded reader may take two in one read).
    expect((arrivals[4] ?? 0) - (arrivals[0] ?? 0)).toBeGreaterThanOrEqual(140)
  })

  it('streams reasoning with its signature, which the provider sends back on the next call', async () => {
    const double = await serve([reasoning('The user greets me.', 'Hello!'), text('Again.')])
    const model = double.provider(SONNET)
    const first = streamText({ model, prompt: 'Hi' })
    const chunks = await uiChunks(first.toUIMessageStream({ sendReasoning: true }))
    expect(chunkTypes(chunks)).toEqual([
      'start',
      'start-step',
      'reasoning-start',
      'reasoning-delta',
      'reasoning-delta',
      'reasoning-end',
      'text-start',
      'text-delta',
      'text-end',
      'finish-step',
      'finish',
    ])
    expect(chunks.filter((chunk) => chunk.type === 'reasoning-delta')).toEqual([
      { type: 'reasoning-delta', id: '0', delta: 'The user greets me.' },
      {
        type: 'reasoning-delta',
        id: '0',
        delta: '',
        providerMetadata: {
          amazonBedrock: { signature: 'bedrock-double-signature' },
          bedrock: { signature: 'bedrock-double-signature' },
        },
      },
    ])
    const response = await first.response
    await streamText({
      model,
      messages: [
        { role: 'user', content: 'Hi' },
        ...response.messages,
        { role: 'user', content: 'Again' },
      ],
    }).consumeStream()
    expect(double.calls[1]?.body.messages[1]).toEqual({
      role: 'assistant',
      content: [
        {
          reasoningContent: {
            reasoningText: { text: 'The user greets me.', signature: 'bedrock-double-signature' },
          },
        },
        { text: 'Hello!' },
      ],
    })
    // Reasoning is left out of the normalized call, as on every double.
    expect(double.calls[1]?.messages).toEqual([
      { role: 'user', text: 'Hi' },
      { role: 'assistant', text: 'Hello!' },
      { role: 'user', text: 'Again' },
    ])
  })

  it("closes a reasoning block with the script's own signature", async () => {
    const parts: LanguageModelV4StreamPart[] = [
      { type: 'reasoning-start', id: 'r' },
      { type: 'reasoning-delta', id: 'r', delta: 'Hmm.' },
      { type: 'reasoning-end', id: 'r', providerMetadata: { bedrock: { signature: 'sig-42' } } },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'end_turn' }, usage },
    ]
    const double = await serve([parts])
    const result = streamText({ model: double.provider(SONNET), prompt: 'Think' })
    await result.consumeStream()
    expect((await result.reasoning)[0]?.providerMetadata).toEqual({
      amazonBedrock: { signature: 'sig-42' },
      bedrock: { signature: 'sig-42' },
    })
  })

  it('streams tool input as a toolUse block, runs the tool, and sends its result back as a toolResult', async () => {
    const streamed: LanguageModelV4StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'tool-input-start', id: 'tooluse_1', toolName: 'search' },
      { type: 'tool-input-delta', id: 'tooluse_1', delta: '{"q":' },
      { type: 'tool-input-delta', id: 'tooluse_1', delta: '"refunds"}' },
      { type: 'tool-input-end', id: 'tooluse_1' },
      { type: 'tool-call', toolCallId: 'tooluse_1', toolName: 'search', input: '{"q":"refunds"}' },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_use' }, usage },
    ]
    const double = await serve([streamed, text('See refunds.md')])
    const result = streamText({
      model: double.provider(SONNET),
      prompt: 'How do refunds work?',
      tools: { search },
      stopWhen: stepCountIs(2),
    })
    const chunks = await uiChunks(result.toUIMessageStream())
    expect(chunkTypes(chunks)).toEqual([
      'start',
      'start-step',
      'tool-input-start',
      'tool-input-delta',
      'tool-input-delta',
      'tool-input-available',
      'tool-output-available',
      'finish-step',
      'start-step',
      'text-start',
      'text-delta',
      'text-end',
      'finish-step',
      'finish',
    ])
    expect(chunks.filter((chunk) => chunk.type === 'tool-input-delta')).toEqual([
      { type: 'tool-input-delta', toolCallId: 'tooluse_1', inputTextDelta: '{"q":' },
      { type: 'tool-input-delta', toolCallId: 'tooluse_1', inputTextDelta: '"refunds"}' },
    ])
    expect(chunks.find((chunk) => chunk.type === 'tool-input-available')).toMatchObject({
      toolCallId: 'tooluse_1',
      toolName: 'search',
      input: { q: 'refunds' },
    })
    expect((await result.steps)[0]?.finishReason).toBe('tool-calls')
    const [first, second] = double.calls
    expect(first?.tools).toEqual(['search'])
    expect(second?.body.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'search', input: { q: 'refunds' } } }],
      },
      {
        role: 'user',
        content: [
          {
            toolResult: {
              toolUseId: 'tooluse_1',
              content: [{ text: '{"hits":["refunds.md"]}' }],
            },
          },
        ],
      },
    ])
    expect(second?.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool'])
  })

  it('streams whole tool calls (toolCalls()) as one toolUse block each', async () => {
    const double = await serve([
      toolCalls(
        { toolCallId: 'a', toolName: 'search', input: { q: 'one' } },
        { toolCallId: 'b', toolName: 'search', input: { q: 'two' } },
      ),
    ])
    const result = streamText({
      model: double.provider(SONNET),
      prompt: 'Search',
      tools: { search },
    })
    await result.consumeStream()
    expect((await result.toolCalls).map((call) => [call.toolCallId, call.input])).toEqual([
      ['a', { q: 'one' }],
      ['b', { q: 'two' }],
    ])
    expect((await result.toolResults).map((call) => call.output)).toEqual([
      { hits: ['one.md'] },
      { hits: ['two.md'] },
    ])
  })

  it('reports usage: input tokens about a quarter of the request bytes, output tokens as scripted', async () => {
    const long: LanguageModelV4StreamPart[] = [
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'cut off' },
      { type: 'text-end', id: 't' },
      {
        type: 'finish',
        finishReason: { unified: 'length', raw: 'length' },
        usage: { ...usage, outputTokens: { total: 7, text: 7, reasoning: 0 } },
      },
    ]
    const double = await serve([long])
    const result = streamText({ model: double.provider(SONNET), prompt: 'Write a lot' })
    await result.consumeStream()
    const inputTokens = Math.ceil(JSON.stringify(double.calls[0]?.body).length / 4)
    expect(await result.finishReason).toBe('length')
    expect(await result.totalUsage).toMatchObject({
      inputTokens,
      inputTokenDetails: { noCacheTokens: inputTokens, cacheReadTokens: 0 },
      outputTokens: 7,
      totalTokens: inputTokens + 7,
    })
  })

  it("streams a hanging step's usage as written, cache reads apart from input tokens as Bedrock counts them", async () => {
    const double = await serve([
      {
        hang: true,
        afterRelease: [
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'cached' },
          { type: 'text-end', id: 't' },
          {
            type: 'finish',
            finishReason: { unified: 'stop', raw: 'stop' },
            usage: {
              inputTokens: { total: 100, noCache: 40, cacheRead: 60, cacheWrite: 0 },
              outputTokens: { total: 3, text: 3, reasoning: 0 },
            },
          },
        ],
      },
    ])
    const result = streamText({ model: double.provider(SONNET), prompt: 'Again' })
    const consumed = result.consumeStream()
    await until(() => double.calls.length === 1)
    double.release()
    await consumed
    expect(await result.totalUsage).toMatchObject({
      inputTokens: 100,
      inputTokenDetails: { noCacheTokens: 40, cacheReadTokens: 60, cacheWriteTokens: 0 },
      outputTokens: 3,
      totalTokens: 103,
    })
  })

  it('maps each finish reason to the stop reason the provider reads back', async () => {
    const finishing = (
      unified: 'stop' | 'content-filter' | 'other',
    ): LanguageModelV4StreamPart[] => [
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: '.' },
      { type: 'text-end', id: 't' },
      { type: 'finish', finishReason: { unified, raw: undefined }, usage },
    ]
    const double = await serve([finishing('stop'), finishing('content-filter'), finishing('other')])
    const reasons: string[] = []
    for (let n = 0; n < 3; n++) {
      const result = streamText({ model: double.provider(SONNET), prompt: 'Go' })
      await result.consumeStream()
      reasons.push(`${await result.finishReason}/${(await result.steps)[0]?.rawFinishReason}`)
    }
    expect(reasons).toEqual([
      'stop/end_turn',
      'content-filter/content_filtered',
      'other/malformed_model_output',
    ])
  })

  it("answers a failed step with Bedrock's error: the status, { message } and x-amzn-ErrorType, as an APICallError", async () => {
    const double = await serve([
      { error: 'Too many requests, please wait before trying again.', status: 429 },
      { error: 'The model ID is not valid.', status: 400, type: 'ValidationException' },
    ])
    const model = double.provider(SONNET)
    const [throttled] = await streamErrors(
      streamText({ model, prompt: 'Hi', maxRetries: 0, onError: () => {} }),
    )
    expect(APICallError.isInstance(throttled)).toBe(true)
    expect(throttled).toMatchObject({
      statusCode: 429,
      message: 'Too many requests, please wait before trying again.',
      isRetryable: true,
      responseHeaders: expect.objectContaining({ 'x-amzn-errortype': 'ThrottlingException' }),
    })
    const [invalid] = await streamErrors(
      streamText({ model, prompt: 'Hi', maxRetries: 0, onError: () => {} }),
    )
    expect(invalid).toMatchObject({
      statusCode: 400,
      message: 'The model ID is not valid.',
      isRetryable: false,
      responseHeaders: expect.objectContaining({ 'x-amzn-errortype': 'ValidationException' }),
    })
  })

  it('ends the stream with an exception frame for an error part mid-stream, typed by the error', async () => {
    const failing = (error: unknown): LanguageModelV4StreamPart[] => [
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Half an ans' },
      { type: 'error', error },
      { type: 'text-delta', id: 't', delta: 'never sent' },
    ]
    const double = await serve([
      failing(new Error('The model stream broke')),
      failing({ type: 'ThrottlingException', message: 'Slow down' }),
    ])
    const model = double.provider(SONNET)
    const first = streamText({ model, prompt: 'Hi', maxRetries: 0, onError: () => {} })
    const chunks = await uiChunks(
      first.toUIMessageStream({
        onError: (error) => {
          const { type, statusCode, message } = error as { type: string } & APICallError
          return `${type} ${statusCode}: ${message}`
        },
      }),
    )
    expect(streamedText(chunks)).toBe('Half an ans')
    expect(chunks.filter((chunk) => chunk.type === 'error')).toEqual([
      { type: 'error', errorText: 'modelStreamErrorException 424: The model stream broke' },
    ])
    expect(await first.finishReason).toBe('error')
    const [throttled] = await streamErrors(
      streamText({ model, prompt: 'Hi', maxRetries: 0, onError: () => {} }),
    )
    expect(throttled).toMatchObject({
      type: 'throttlingException',
      message: 'Slow down',
      statusCode: 429,
    })
  })

  it('holds a hanging step open until release(), then streams the rest', async () => {
    const double = await serve([
      {
        hang: true,
        parts: [
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'Waiting' },
        ],
        afterRelease: [
          { type: 'text-delta', id: 't', delta: ', done' },
          { type: 'text-end', id: 't' },
          { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
        ],
      },
    ])
    const result = streamText({ model: double.provider(SONNET), prompt: 'Wait' })
    const seen: string[] = []
    for await (const part of result.textStream) {
      seen.push(part)
      if (seen.length === 1) double.release()
    }
    expect(seen.join('')).toBe('Waiting, done')
    expect(await result.finishReason).toBe('stop')
  })

  it('ends a hanging step when the caller aborts, without a release', async () => {
    const double = await serve([
      {
        hang: true,
        parts: [
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'Stuck' },
        ],
      },
    ])
    const abort = new AbortController()
    const result = streamText({
      model: double.provider(SONNET),
      prompt: 'Wait',
      abortSignal: abort.signal,
    })
    const types: string[] = []
    for await (const part of result.fullStream) {
      types.push(part.type)
      if (part.type === 'text-delta') abort.abort()
    }
    expect(types).toContain('text-delta')
    expect(types.at(-1)).toBe('abort')
  })

  it('refuses a request without a SigV4 signature with 403, as Bedrock does, and accepts its API key', async () => {
    bedrock = await bedrockDouble({ script: () => text('Signed in'), apiKey: 'bedrock-api-key' })
    const url = `${bedrock.url}/model/${encodeURIComponent(SONNET)}/converse-stream`
    const unsigned = await fetch(url, { method: 'POST', body: JSON.stringify({ messages: [] }) })
    expect(unsigned.status).toBe(403)
    expect(unsigned.headers.get('x-amzn-errortype')).toBe('MissingAuthenticationTokenException')
    expect(await unsigned.json()).toEqual({ message: 'Missing Authentication Token' })

    const wrongKey = createAmazonBedrock({ baseURL: bedrock.url, apiKey: 'not-the-key' })
    const [refused] = await streamErrors(
      streamText({ model: wrongKey(SONNET), prompt: 'Hi', maxRetries: 0, onError: () => {} }),
    )
    expect(refused).toMatchObject({ statusCode: 403 })

    const keyed = createAmazonBedrock({ baseURL: bedrock.url, apiKey: 'bedrock-api-key' })
    const result = streamText({ model: keyed(SONNET), prompt: 'Hi' })
    expect(await result.text).toBe('Signed in')
    // The refused requests never reached the script.
    expect(bedrock.calls.map((call) => call.authorization)).toEqual(['Bearer bedrock-api-key'])
  })
})

describe("bedrockDouble().env(): a `bedrock:` model ID on the double, as in a Lambda function's environment", () => {
  beforeEach(() => {
    vi.stubEnv('AWS_BEARER_TOKEN_BEDROCK', 'a-key-from-the-machine')
  })

  it('runs an agent turn with a tool call end to end', async () => {
    const double = await serve((call, index) =>
      index === 0
        ? toolCalls({ toolCallId: 'tooluse_9', toolName: 'search', input: { q: 'returns' } })
        : text(`Found: ${call.messages.at(-1)?.text}`),
    )
    for (const [name, value] of Object.entries(double.env())) vi.stubEnv(name, value)
    const a = track(agent({ name: 'bedrock-tools', model: `bedrock:${SONNET}`, tools: { search } }))
    await a.session('s').append(...inputs.message(userMessage('u1', 'Where are returns?')))
    await a.runtime.idle()

    const { state } = await a.session('s').state()
    expect(state.deadLetters).toEqual([])
    const answer = state.messages[1]
    expect(answer?.parts).toContainEqual(
      expect.objectContaining({
        type: 'tool-search',
        toolCallId: 'tooluse_9',
        state: 'output-available',
        input: { q: 'returns' },
        output: { hits: ['returns.md'] },
      }),
    )
    expect(textOf(answer)).toContain('Found: ')
    expect(textOf(answer)).toContain('returns.md')
    expect(double.calls).toHaveLength(2)
    expect(double.calls.every((call) => call.modelId === SONNET)).toBe(true)
    // Signed with the double's credentials, though a key was in the environment.
    expect(double.calls[0]?.authorization).toContain('Credential=AKIABEDROCKDOUBLE/')
    expect(double.calls[1]?.messages.at(-1)).toEqual({
      role: 'tool',
      text: JSON.stringify({
        toolResult: { toolUseId: 'tooluse_9', content: [{ text: '{"hits":["returns.md"]}' }] },
      }),
    })
    const completed = (await eventsOf(a, 's')).filter(
      (event) => event.type === 'ai.generation.completed',
    )
    expect(completed.map((event) => event.payload)).toMatchObject([
      { outcome: 'success', modelId: `amazon-bedrock/${SONNET}`, finishReason: 'tool-calls' },
      { outcome: 'success', modelId: `amazon-bedrock/${SONNET}`, finishReason: 'stop' },
    ])
  })
})
