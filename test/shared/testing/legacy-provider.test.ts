import { jsonSchema, stepCountIs, streamText, tool, type UIMessageChunk } from 'ai'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { unversionedProvider, v2Model } from '../../../shared/testing/legacy-provider.ts'
import { lastUserText, text, toolCalls } from '../../../shared/testing/model-script.ts'
import { scriptedModel } from '../../../shared/testing/scripted-model.ts'
import { chunkTypes, streamedText, uiChunks } from '../../support/ui-chunks.ts'

// What the AI SDK's compatibility mode hands on, through the real
// streamText(...).toUIMessageStream(): the shapes A2's runtime reads from a
// model it did not write, pinned so a change in the SDK shows here first.

const search = tool({
  inputSchema: jsonSchema<{ q: string }>({
    type: 'object',
    properties: { q: { type: 'string' } },
    required: ['q'],
  }),
  execute: async ({ q }) => ({ hits: [`${q}.md`] }),
})
const searchStep = toolCalls({ toolCallId: 'c1', toolName: 'search', input: { q: 'refunds' } })

let warnings: { type: string; feature?: string }[]
beforeEach(() => {
  warnings = []
  vi.stubGlobal('AI_SDK_LOG_WARNINGS', (options: { warnings: typeof warnings }) => {
    warnings.push(...options.warnings)
  })
})
let undo: (() => void) | undefined
afterEach(() => {
  undo?.()
  undo = undefined
})

/** The chunks, with the usage of each step and of the whole response forwarded as message metadata. */
async function chunksWithUsage(result: ReturnType<typeof streamText>): Promise<UIMessageChunk[]> {
  return uiChunks(
    result.toUIMessageStream({
      messageMetadata: ({ part }) =>
        part.type === 'finish'
          ? { totalUsage: part.totalUsage }
          : part.type === 'finish-step'
            ? { finishReason: part.finishReason, usage: part.usage }
            : undefined,
    }),
  )
}

const metadataOf = (chunks: readonly UIMessageChunk[]) =>
  chunks.flatMap((chunk) =>
    chunk.type === 'message-metadata' || chunk.type === 'finish' ? [chunk.messageMetadata] : [],
  )

const compatibilityWarning = {
  type: 'compatibility',
  feature: 'specificationVersion',
  details: 'Using v2 specification compatibility mode. Some features may not be available.',
}

describe('v2Model(): a model on the v2 specification (AI SDK 5 providers)', () => {
  it('streams text, its finish reason a string and its usage numbers, as a v4 model does', async () => {
    const legacy = v2Model((call) => text(`echo: ${lastUserText(call)}`))
    const chunks = await chunksWithUsage(streamText({ model: legacy.model, prompt: 'Hi' }))
    expect(chunkTypes(chunks)).toEqual([
      'start',
      'start-step',
      'text-start',
      'text-delta',
      'text-end',
      'message-metadata',
      'finish-step',
      'finish',
    ])
    expect(streamedText(chunks)).toBe('echo: Hi')
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' })
    const [step, total] = metadataOf(chunks) as [
      { finishReason: unknown; usage: { inputTokens: number } },
      { totalUsage: unknown },
    ]
    const input = step.usage.inputTokens
    expect(input).toBeGreaterThan(0)
    expect(step).toEqual({
      finishReason: 'stop',
      usage: {
        inputTokens: input,
        inputTokenDetails: { cacheReadTokens: 0 },
        outputTokens: 5,
        outputTokenDetails: { reasoningTokens: 0 },
        totalTokens: input + 5,
        raw: { totalTokens: input + 5 },
      },
    })
    expect(total).toEqual({ totalUsage: step.usage })
    expect(legacy.calls).toEqual([
      {
        modelId: 'v2-model',
        system: undefined,
        messages: [{ role: 'user', text: 'Hi' }],
        tools: [],
        body: expect.objectContaining({ prompt: expect.any(Array) }),
      },
    ])
    expect(warnings).toEqual([compatibilityWarning])
  })

  it('runs its tool calls: the second step gets the result', async () => {
    const legacy = v2Model([searchStep, text('See refunds.md')])
    const result = streamText({
      model: legacy.model,
      prompt: 'Refunds?',
      tools: { search },
      stopWhen: stepCountIs(2),
    })
    const chunks = await uiChunks(result.toUIMessageStream())
    expect(chunks.filter((chunk) => chunk.type.startsWith('tool-'))).toEqual([
      {
        type: 'tool-input-available',
        toolCallId: 'c1',
        toolName: 'search',
        input: { q: 'refunds' },
      },
      { type: 'tool-output-available', toolCallId: 'c1', output: { hits: ['refunds.md'] } },
    ])
    expect((await result.steps).map((step) => step.finishReason)).toEqual(['tool-calls', 'stop'])
    expect(legacy.calls.map((call) => call.tools)).toEqual([['search'], ['search']])
    expect(legacy.calls[1]?.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
    ])
  })

  it('fails a failing step with its error, and holds a hanging one until release()', async () => {
    const legacy = v2Model([
      { error: 'The legacy provider failed' },
      {
        hang: true,
        parts: [
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'Waiting' },
        ],
        afterRelease: [
          { type: 'text-delta', id: 't', delta: ', done' },
          { type: 'text-end', id: 't' },
          ...text('').filter((part) => part.type === 'finish'),
        ],
      },
    ])
    const failed = await uiChunks(
      streamText({
        model: legacy.model,
        prompt: 'Hi',
        maxRetries: 0,
        onError: () => {},
      }).toUIMessageStream({ onError: (error) => (error instanceof Error ? error.message : '?') }),
    )
    expect(failed.filter((chunk) => chunk.type === 'error')).toEqual([
      { type: 'error', errorText: 'The legacy provider failed' },
    ])
    const result = streamText({ model: legacy.model, prompt: 'Wait' })
    const seen: string[] = []
    for await (const part of result.textStream) {
      seen.push(part)
      if (seen.length === 1) legacy.release()
    }
    expect(seen).toEqual(['Waiting', ', done'])
    expect(await result.finishReason).toBe('stop')
  })
})

describe('unversionedProvider(): a default provider object without specificationVersion', () => {
  it('around a v4 model: the finish reason reaches the UI stream as an object, and usage token counts as objects', async () => {
    const scripted = scriptedModel([text('Hello')])
    const legacy = unversionedProvider(scripted.model)
    undo = legacy.install()
    const result = streamText({ model: 'acme/model-1', prompt: 'Hi' })
    const chunks = await chunksWithUsage(result)
    expect(legacy.modelIds).toEqual(['acme/model-1'])
    expect(streamedText(chunks)).toBe('Hello')
    expect(chunks.at(-1)).toEqual({
      type: 'finish',
      finishReason: { unified: 'stop', raw: 'stop' },
      messageMetadata: expect.anything(),
    })
    const [step, total] = metadataOf(chunks) as [
      { usage: { inputTokens: { total: number } } },
      unknown,
    ]
    const input = step.usage.inputTokens.total
    expect(input).toBeGreaterThan(0)
    // Each step's v4 usage read as v2's flat counts: the v4 objects where the numbers go.
    expect(step).toEqual({
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: {
        inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
        inputTokenDetails: {},
        outputTokens: { total: 5, text: 5, reasoning: 0 },
        outputTokenDetails: {},
        totalTokens: '[object Object][object Object]',
      },
    })
    // The response's usage adds them up from 0: strings.
    const strings = {
      inputTokens: '0[object Object]',
      inputTokenDetails: {},
      outputTokens: '0[object Object]',
      outputTokenDetails: {},
      totalTokens: '0[object Object][object Object]',
    }
    expect(total).toEqual({ totalUsage: strings })
    expect(await result.usage).toEqual(strings)
    expect(await result.finishReason).toEqual({ unified: 'stop', raw: 'stop' })
    expect(warnings).toEqual([compatibilityWarning])
  })

  it('around a v4 model: a tool call is streamed but never run, and the response ends after its step', async () => {
    const scripted = scriptedModel([searchStep, text('never asked')])
    undo = unversionedProvider(scripted.model).install()
    const result = streamText({
      model: 'acme/model-1',
      prompt: 'Refunds?',
      tools: { search },
      stopWhen: stepCountIs(2),
    })
    const chunks = await uiChunks(result.toUIMessageStream())
    expect(chunkTypes(chunks)).toEqual([
      'start',
      'start-step',
      'tool-input-available',
      'finish-step',
      'finish',
    ])
    expect(chunks.at(-1)).toEqual({
      type: 'finish',
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    })
    // The SDK runs tools only after a 'stop' or 'tool-calls' finish reason.
    expect(await result.toolResults).toEqual([])
    expect(scripted.calls).toHaveLength(1)
  })

  it('around a v2 model: converted as it should be, a string finish reason and number counts', async () => {
    const legacy = unversionedProvider(v2Model([text('Fine')]).model)
    undo = legacy.install()
    const result = streamText({ model: 'acme/model-2', prompt: 'Hi' })
    const chunks = await uiChunks(result.toUIMessageStream())
    expect(streamedText(chunks)).toBe('Fine')
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' })
    expect(await result.usage).toMatchObject({ outputTokens: 5, totalTokens: expect.any(Number) })
    expect(legacy.modelIds).toEqual(['acme/model-2'])
  })

  it('install() returns the undo: model IDs resolve to what they resolved to before', () => {
    const global = globalThis as { AI_SDK_DEFAULT_PROVIDER?: unknown }
    const before = global.AI_SDK_DEFAULT_PROVIDER
    const legacy = unversionedProvider(v2Model([]).model)
    const uninstall = legacy.install()
    expect(global.AI_SDK_DEFAULT_PROVIDER).toBe(legacy.provider)
    uninstall()
    expect(global.AI_SDK_DEFAULT_PROVIDER).toBe(before)
  })
})
