import { simulateReadableStream, tool, type UIMessageChunk } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agent } from '../../../shared/agent/index.ts'
import { agentContract, inputs } from '../../../shared/ai.ts'
import { scriptedModel, text } from '../../../shared/testing/scripted-model.ts'
import type { MetadataAssistantMessage } from '../../seeds/metadata-assistant.ts'
import { eventsOf, textOf, track, userMessage } from '../../support/agent-log.ts'

describe('harness options', () => {
  it('messageMetadata: what it returns for start and finish is logged and merged onto the assistant message', async () => {
    const a = track(
      agent({
        contract: agentContract<MetadataAssistantMessage>({ name: 'metadata-assistant' }),
        model: scriptedModel([text('All done.')]).model,
        harness: {
          type: 'ai-sdk',
          messageMetadata: ({ part }) => {
            if (part.type === 'start') return { status: 'writing' as const }
            if (part.type === 'finish')
              return { status: 'complete' as const, usage: part.totalUsage }
            return undefined
          },
        },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'hi')))
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(state.messages[1]?.metadata).toMatchObject({
      status: 'complete',
      usage: { inputTokens: expect.any(Number), outputTokens: 5 },
    })
    const chunks = (await eventsOf(a, 's'))
      .filter((event) => event.type === 'ai.generation.progress')
      .flatMap((event) => (event.payload as { chunks: UIMessageChunk[] }).chunks)
    expect(chunks.find((chunk) => chunk.type === 'start')).toMatchObject({
      messageMetadata: { status: 'writing' },
    })
  })

  it('Given messageMetadata, Then "the synchronous harness.messageMetadata callback gets the generate context plus the current TextStreamPart as part"', async () => {
    const seen: {
      part: string
      generationId: string
      step: number
      sessionId: string
      plan: unknown
      messages: number
      signal: boolean
      model: boolean
    }[] = []
    const a = track(
      agent({
        contract: agentContract({
          name: 'metadata-context',
          reducer: { name: 'plan.v1', initialState: { plan: 'pro' }, fold: (state) => state },
        }),
        model: scriptedModel([text('Hello.')]).model,
        harness: {
          type: 'ai-sdk',
          messageMetadata: (context) => {
            seen.push({
              part: context.part.type,
              generationId: context.generationId,
              step: context.event.payload.step,
              sessionId: context.sessionId,
              plan: context.state.plan,
              messages: context.messages.length,
              signal: context.signal instanceof AbortSignal,
              model: typeof context.model === 'object',
            })
            return context.part.type === 'start'
              ? { generationId: context.generationId }
              : undefined
          },
        },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'hi')))
    await a.runtime.idle()
    const started = (await eventsOf(a, 's')).find((event) => event.type === 'ai.generation.started')
    const generationId = (started?.payload as { generationId?: string } | undefined)?.generationId
    expect(seen.map((call) => call.part)).toEqual(expect.arrayContaining(['start', 'finish']))
    for (const call of seen) {
      expect(call).toMatchObject({
        generationId,
        step: 1,
        sessionId: 's',
        plan: 'pro',
        messages: 1,
        signal: true,
        model: true,
      })
    }
    const { state } = await a.session('s').state()
    expect(state.messages[1]?.metadata).toEqual({ generationId })
  })

  it('generate replaces only the model-facing step: A2 still runs the tools it calls and continues', async () => {
    const ran: string[] = []
    const steps: { messages: unknown[]; generationId: string; hasExecute: boolean }[] = []
    const a = track(
      agent({
        name: 'custom',
        model: 'unused/model',
        tools: {
          lookup: tool({
            inputSchema: z.object({ q: z.string() }),
            execute: async ({ q }) => {
              ran.push(q)
              return { found: q.toUpperCase() }
            },
          }),
        },
        harness: {
          type: 'ai-sdk',
          generate: ({ event, messages, generationId, tools }) => {
            steps.push({ messages, generationId, hasExecute: 'execute' in (tools.lookup ?? {}) })
            const id = event.payload.responseMessageId
            const chunks: UIMessageChunk[] =
              steps.length === 1
                ? [
                    { type: 'start', messageId: id },
                    { type: 'start-step' },
                    {
                      type: 'tool-input-available',
                      toolCallId: 'c1',
                      toolName: 'lookup',
                      input: { q: 'abc' },
                    },
                    { type: 'finish-step' },
                    { type: 'finish', finishReason: 'tool-calls' },
                  ]
                : [
                    { type: 'start', messageId: id },
                    { type: 'start-step' },
                    { type: 'text-start', id: 't' },
                    { type: 'text-delta', id: 't', delta: 'Found ABC.' },
                    { type: 'text-end', id: 't' },
                    { type: 'finish-step' },
                    { type: 'finish', finishReason: 'stop' },
                  ]
            return simulateReadableStream({ chunks, initialDelayInMs: null, chunkDelayInMs: null })
          },
        },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'look up abc')))
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(ran).toEqual(['abc'])
    expect(steps).toHaveLength(2)
    expect(steps[0]?.hasExecute).toBe(false)
    expect(steps[0]?.generationId).not.toBe(steps[1]?.generationId)
    expect(JSON.stringify(steps[1]?.messages)).toContain('"found":"ABC"')
    expect(textOf(state.messages[1])).toBe('Found ABC.')
  })

  it('Given a custom generate whose tool call has input the schema refuses, Then "validation errors ... become durable ai.tool.result events" as with the default generator: execute never sees it', async () => {
    const ran: unknown[] = []
    const policyInputs: unknown[] = []
    const prompts: string[] = []
    const lookup = tool({
      inputSchema: z.object({ q: z.string(), limit: z.number().default(5) }),
      execute: async (input) => {
        ran.push(input)
        return { found: input.q }
      },
    })
    const a = track(
      agent({
        name: 'custom-validation',
        model: 'unused/model',
        tools: { lookup },
        harness: {
          type: 'ai-sdk',
          generation: {
            toolApproval: {
              lookup: (input) => {
                policyInputs.push(input)
                return 'approved'
              },
            },
          },
          generate: ({ event, messages }) => {
            prompts.push(JSON.stringify(messages))
            const id = event.payload.responseMessageId
            const chunks: UIMessageChunk[] =
              prompts.length === 1
                ? [
                    { type: 'start', messageId: id },
                    { type: 'start-step' },
                    {
                      type: 'tool-input-available',
                      toolCallId: 'bad',
                      toolName: 'lookup',
                      input: { q: 42 },
                    },
                    {
                      type: 'tool-input-available',
                      toolCallId: 'good',
                      toolName: 'lookup',
                      input: { q: 'abc' },
                    },
                    { type: 'finish-step' },
                    { type: 'finish', finishReason: 'tool-calls' },
                  ]
                : [
                    { type: 'start', messageId: id },
                    { type: 'start-step' },
                    { type: 'text-start', id: 't' },
                    { type: 'text-delta', id: 't', delta: 'One lookup failed.' },
                    { type: 'text-end', id: 't' },
                    { type: 'finish-step' },
                    { type: 'finish', finishReason: 'stop' },
                  ]
            return simulateReadableStream({ chunks, initialDelayInMs: null, chunkDelayInMs: null })
          },
        },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'look up')))
    await a.runtime.idle()
    // Only the valid call ran, with the schema's output (its default filled in).
    expect(ran).toEqual([{ q: 'abc', limit: 5 }])
    expect(policyInputs).toEqual([{ q: 'abc', limit: 5 }])
    const results = (await eventsOf(a, 's'))
      .filter((event) => event.type === 'ai.tool.result')
      .map((event) => event.payload)
    expect(results).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          toolCallId: 'bad',
          outcome: 'error',
          errorText: expect.stringContaining('Invalid input for tool lookup'),
        }),
        expect.objectContaining({ toolCallId: 'good', outcome: 'output' }),
      ]),
    )
    const { state } = await a.session('s').state()
    expect(
      state.messages[1]?.parts.find((part) => 'toolCallId' in part && part.toolCallId === 'bad'),
    ).toMatchObject({
      state: 'output-error',
    })
    expect(prompts[1]).toContain('Invalid input for tool lookup')
    expect(textOf(state.messages[1])).toBe('One lookup failed.')
  })

  it('maxSteps bounds the loop: the response completes after that many steps', async () => {
    const loop = tool({ inputSchema: z.object({}), execute: async () => 'again' })
    const a = track(
      agent({
        name: 'bounded',
        tools: { loop },
        harness: { type: 'ai-sdk', maxSteps: 2 },
        model: scriptedModel(
          Array.from({ length: 5 }, (_, i) => [
            { type: 'stream-start' as const, warnings: [] },
            { type: 'tool-call' as const, toolCallId: `c${i}`, toolName: 'loop', input: '{}' },
            {
              type: 'finish' as const,
              finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
              usage: {
                inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
                outputTokens: { total: 1, text: 1, reasoning: 0 },
              },
            },
          ]),
        ).model,
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'loop')))
    await a.runtime.idle()
    const events = await eventsOf(a, 's')
    expect(events.filter((event) => event.type === 'ai.generation.started')).toHaveLength(2)
    expect(events.find((event) => event.type === 'ai.message.completed')?.payload).toMatchObject({
      reason: 'max-steps',
    })
  })
})
