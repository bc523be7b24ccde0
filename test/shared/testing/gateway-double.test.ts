import { createGateway, GatewayAuthenticationError, GatewayRateLimitError } from '@ai-sdk/gateway'
import type { LanguageModelV4StreamPart, LanguageModelV4Usage } from '@ai-sdk/provider'
import { jsonSchema, stepCountIs, streamText, tool } from 'ai'
import { afterEach, describe, expect, it } from 'vitest'
import { lookUpModel } from '../../../shared/agent/model-step/model-catalog.ts'
import { type GatewayDouble, gatewayDouble } from '../../../shared/testing/gateway-double.ts'
import {
  lastUserText,
  reasoning,
  type Script,
  text,
  toolCalls,
} from '../../../shared/testing/model-script.ts'
import { chunkTypes, streamedText, uiChunks } from '../../support/ui-chunks.ts'

const MODEL = 'openai/gpt-5.6-terra'
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

let gateway: GatewayDouble | undefined
let uninstall: (() => void) | undefined
afterEach(async () => {
  uninstall?.()
  uninstall = undefined
  await gateway?.close()
  gateway = undefined
})

/** A double installed as the AI SDK's default provider: model ID strings reach it. */
async function serve(
  script: Script,
  options: Omit<Parameters<typeof gatewayDouble>[0], 'script'> = {},
): Promise<GatewayDouble> {
  gateway = await gatewayDouble({ script, ...options })
  uninstall = gateway.install()
  return gateway
}

async function streamErrors(result: {
  fullStream: AsyncIterable<{ type: string; error?: unknown }>
}): Promise<unknown[]> {
  const errors: unknown[] = []
  for await (const part of result.fullStream) {
    if (part.type === 'error') errors.push(part.error)
  }
  return errors
}

describe('gatewayDouble() through the real @ai-sdk/gateway provider', () => {
  it('answers a model ID string once installed, and records the call', async () => {
    const double = await serve((call) => text(`echo: ${lastUserText(call)}`, { chunks: 2 }))
    const result = streamText({ model: MODEL, system: 'Be brief.', prompt: 'Hi there' })
    const chunks = await uiChunks(result.toUIMessageStream())
    expect(chunkTypes(chunks)).toEqual([
      'start',
      'start-step',
      'text-start',
      'text-delta',
      'text-delta',
      'text-end',
      'finish-step',
      'finish',
    ])
    expect(streamedText(chunks)).toBe('echo: Hi there')
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' })
    expect(double.calls).toEqual([
      {
        modelId: MODEL,
        system: 'Be brief.',
        messages: [{ role: 'user', text: 'Hi there' }],
        tools: [],
        body: expect.objectContaining({ prompt: expect.any(Array) }),
      },
    ])
  })

  it('install() returns the undo: model IDs resolve to what they resolved to before', async () => {
    const global = globalThis as { AI_SDK_DEFAULT_PROVIDER?: unknown }
    const before = global.AI_SDK_DEFAULT_PROVIDER
    const double = await serve([text('x')])
    expect(global.AI_SDK_DEFAULT_PROVIDER).toBe(double.provider)
    uninstall?.()
    uninstall = undefined
    expect(global.AI_SDK_DEFAULT_PROVIDER).toBe(before)
  })

  it('streams reasoning parts, and leaves them out of the next call as the script sees it', async () => {
    const double = await serve([reasoning('The user greets me.', 'Hello!'), text('Again.')])
    const first = streamText({ model: MODEL, prompt: 'Hi' })
    const chunks = await uiChunks(first.toUIMessageStream({ sendReasoning: true }))
    expect(chunks.filter((chunk) => chunk.type.startsWith('reasoning'))).toEqual([
      { type: 'reasoning-start', id: 'r1' },
      { type: 'reasoning-delta', id: 'r1', delta: 'The user greets me.' },
      { type: 'reasoning-end', id: 'r1' },
    ])
    const response = await first.response
    await streamText({
      model: MODEL,
      messages: [{ role: 'user', content: 'Hi' }, ...response.messages],
    }).consumeStream()
    expect(double.calls[1]?.messages).toEqual([
      { role: 'user', text: 'Hi' },
      { role: 'assistant', text: 'Hello!' },
    ])
  })

  it('streams tool input in deltas, and the tool result reaches the next call as a tool message', async () => {
    const streamed: LanguageModelV4StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'tool-input-start', id: 'call_1', toolName: 'search' },
      { type: 'tool-input-delta', id: 'call_1', delta: '{"q":' },
      { type: 'tool-input-delta', id: 'call_1', delta: '"refunds"}' },
      { type: 'tool-input-end', id: 'call_1' },
      { type: 'tool-call', toolCallId: 'call_1', toolName: 'search', input: '{"q":"refunds"}' },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
    ]
    const double = await serve([streamed, text('See refunds.md')])
    const result = streamText({
      model: MODEL,
      prompt: 'How do refunds work?',
      tools: { search },
      stopWhen: stepCountIs(2),
    })
    const chunks = await uiChunks(result.toUIMessageStream())
    expect(chunks.filter((chunk) => chunk.type.startsWith('tool-'))).toEqual([
      { type: 'tool-input-start', toolCallId: 'call_1', toolName: 'search' },
      { type: 'tool-input-delta', toolCallId: 'call_1', inputTextDelta: '{"q":' },
      { type: 'tool-input-delta', toolCallId: 'call_1', inputTextDelta: '"refunds"}' },
      {
        type: 'tool-input-available',
        toolCallId: 'call_1',
        toolName: 'search',
        input: { q: 'refunds' },
      },
      { type: 'tool-output-available', toolCallId: 'call_1', output: { hits: ['refunds.md'] } },
    ])
    expect(streamedText(chunks)).toBe('See refunds.md')
    expect(double.calls[0]?.tools).toEqual(['search'])
    expect(double.calls[1]?.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
    ])
    expect(double.calls[1]?.messages[2]?.text).toContain('"toolCallId":"call_1"')
    expect(double.calls[1]?.messages[2]?.text).toContain('refunds.md')
  })

  it('reports usage: input tokens about a quarter of the request bytes, output tokens as scripted', async () => {
    const double = await serve([
      toolCalls({ toolCallId: 'c', toolName: 'search', input: { q: 'x' } }),
    ])
    const result = streamText({ model: MODEL, prompt: 'Count me', tools: { search } })
    await result.consumeStream()
    const inputTokens = Math.ceil(JSON.stringify(double.calls[0]?.body).length / 4)
    expect(await result.finishReason).toBe('tool-calls')
    expect(await result.totalUsage).toMatchObject({
      inputTokens,
      outputTokens: 5,
      totalTokens: inputTokens + 5,
    })
  })

  it("turns a failed step's error type into the Gateway's typed error: rate_limit_exceeded, 429, is a GatewayRateLimitError", async () => {
    await serve([
      { error: 'Slow down', status: 429, type: 'rate_limit_exceeded' },
      { error: 'Something broke' },
    ])
    const [limited] = await streamErrors(
      streamText({ model: MODEL, prompt: 'Hi', maxRetries: 0, onError: () => {} }),
    )
    expect(GatewayRateLimitError.isInstance(limited)).toBe(true)
    expect(limited).toMatchObject({ statusCode: 429, message: 'Slow down' })
    const [broken] = await streamErrors(
      streamText({ model: MODEL, prompt: 'Hi', maxRetries: 0, onError: () => {} }),
    )
    expect(broken).toMatchObject({
      statusCode: 500,
      type: 'internal_server_error',
      message: 'Something broke',
    })
  })

  it('streams an error part mid-stream to the caller after the text before it', async () => {
    await serve([
      [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Half an ans' },
        { type: 'error', error: new Error('The upstream provider failed') },
      ],
    ])
    const result = streamText({ model: MODEL, prompt: 'Hi', maxRetries: 0, onError: () => {} })
    const chunks = await uiChunks(
      result.toUIMessageStream({
        onError: (error) => (error instanceof Error ? `${error.name}: ${error.message}` : '?'),
      }),
    )
    expect(streamedText(chunks)).toBe('Half an ans')
    expect(chunks.filter((chunk) => chunk.type === 'error')).toEqual([
      { type: 'error', errorText: 'AI_StreamProviderError: The upstream provider failed' },
    ])
  })

  it('streams each part chunkDelayMs after the one before, so a text in deltas arrives over time', async () => {
    await serve([text('one two three four five', { chunks: 5 })], { chunkDelayMs: 40 })
    const started = Date.now()
    const arrivals: number[] = []
    for await (const _ of streamText({ model: MODEL, prompt: 'Slowly' }).textStream) {
      arrivals.push(Date.now() - started)
    }
    expect(arrivals).toHaveLength(5)
    // Sent 40 ms apart: over at least most of 160 ms. A loaded reader may
    // take two in one read, so single gaps say less than the spread.
    expect((arrivals[4] ?? 0) - (arrivals[0] ?? 0)).toBeGreaterThanOrEqual(140)
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
    const result = streamText({ model: MODEL, prompt: 'Wait' })
    const seen: string[] = []
    for await (const part of result.textStream) {
      seen.push(part)
      if (seen.length === 1) double.release()
    }
    expect(seen.join('')).toBe('Waiting, done')
    expect(await result.finishReason).toBe('stop')
  })

  it('ends a hanging step when the caller aborts, without a release', async () => {
    await serve([
      {
        hang: true,
        parts: [
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'Stuck' },
        ],
      },
    ])
    const abort = new AbortController()
    const result = streamText({ model: MODEL, prompt: 'Wait', abortSignal: abort.signal })
    const types: string[] = []
    for await (const part of result.fullStream) {
      types.push(part.type)
      if (part.type === 'text-delta') abort.abort()
    }
    expect(types).toContain('text-delta')
    expect(types.at(-1)).toBe('abort')
  })

  it('refuses a call without its API key with 401, a GatewayAuthenticationError, before the script', async () => {
    const double = await serve([text('never')], { apiKey: 'the-right-key' })
    const wrong = createGateway({ baseURL: double.baseURL, apiKey: 'a-wrong-key' })
    const [refused] = await streamErrors(
      streamText({ model: wrong(MODEL), prompt: 'Hi', maxRetries: 0, onError: () => {} }),
    )
    expect(GatewayAuthenticationError.isInstance(refused)).toBe(true)
    expect(refused).toMatchObject({ statusCode: 401 })
    expect(double.calls).toEqual([])
  })
})

describe("gatewayDouble()'s model catalog, read by A2's catalog client", () => {
  it('lists the models it is given, with their limits; a model it does not list is unavailable', async () => {
    const double = await serve([], {
      catalog: { [MODEL]: { contextWindow: 400_000, maxOutputTokens: 128_000 } },
    })
    const url = double.catalogUrl
    expect(await lookUpModel(MODEL, { url })).toEqual({
      contextWindow: 400_000,
      maxOutputTokens: 128_000,
    })
    expect(await lookUpModel('anthropic/claude-unlisted', { url })).toBeUndefined()
    expect(double.catalogReads()).toBe(2)
  })

  it('lists nothing by default', async () => {
    const double = await serve([])
    expect(await lookUpModel(MODEL, { url: double.catalogUrl })).toBeUndefined()
  })

  it('answers with the status it is given instead ({ status: 503 }: down), so the lookup fails', async () => {
    const double = await serve([], { catalog: { status: 503 } })
    await expect(lookUpModel(MODEL, { url: double.catalogUrl })).rejects.toThrow(
      `The model catalog at ${double.catalogUrl} answered 503`,
    )
    expect(double.catalogReads()).toBe(1)
  })
})
