import { randomBytes } from 'node:crypto'
import { tool } from 'ai'
import { describe, expect, it, onTestFinished } from 'vitest'
import { z } from 'zod'
import { agent } from '../../../shared/agent/index.ts'
import { inputs } from '../../../shared/ai.ts'
import type { EventStore } from '../../../shared/log/event-store.ts'
import { memoryEventStore } from '../../../shared/stores/memory/memory-event-store.ts'
import { unversionedProvider, v2Model } from '../../../shared/testing/legacy-provider.ts'
import { scriptedModel, text, toolCalls } from '../../../shared/testing/scripted-model.ts'
import { eventsOf, textOf, track, userMessage } from '../../support/agent-log.ts'

// Model output the log cannot store must end the turn as failed, within the
// attempt limit, instead of looping: once, a tool whose step could not be
// recorded ran 388 times in 90 s while the session stayed `generating`.

const quiet = { info() {}, warn() {}, error() {} }
const fast = { maxAttempts: 5, baseDelayMs: 1, maxDelayMs: 2 }

/** A side-effecting tool that counts its runs. */
function countingTool() {
  const runs = { count: 0 }
  const ship = tool({
    description: 'Ship the order',
    inputSchema: z.object({ orderId: z.string() }),
    execute: async ({ orderId }) => {
      runs.count++
      return { shipped: orderId }
    },
  })
  return { runs, ship }
}

describe('model output that cannot be stored', () => {
  it('a global provider object without specificationVersion (the compatibility mode) completes its turn: the finish reason and usage are read back', async () => {
    const { runs, ship } = countingTool()
    const scripted = scriptedModel([
      toolCalls({ toolCallId: 'call_0', toolName: 'ship', input: { orderId: 'o1' } }),
      text('Shipped.'),
    ])
    // What users write: an object with languageModel(), no specificationVersion.
    onTestFinished(unversionedProvider(scripted.model).install())
    const a = track(
      agent({
        name: 'compat',
        model: 'acme/model',
        tools: { ship },
        // The catalog does not list it (no network here).
        modelCatalog: { fetch: async () => Response.json({ data: [] }) },
        logger: quiet,
        retry: fast,
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'ship o1')))
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(state.active).toBeNull()
    expect(textOf(state.messages.at(-1))).toBe('Shipped.')
    expect(runs.count).toBe(1)
    const completed = (await eventsOf(a, 's')).filter(
      (event) => event.type === 'ai.generation.completed',
    )
    expect(completed.map((event) => event.payload)).toEqual([
      expect.objectContaining({ outcome: 'success', finishReason: 'tool-calls' }),
      expect.objectContaining({ outcome: 'success', finishReason: 'stop' }),
    ])
    const usage =
      (completed[1]?.payload as { usage?: Record<string, unknown> } | undefined)?.usage ?? {}
    // The SDK summed the wrapped counts into strings ('0[object Object]'):
    // no count is stored rather than a wrong one.
    for (const count of ['inputTokens', 'outputTokens', 'totalTokens']) {
      expect(['number', 'undefined']).toContain(typeof usage[count])
    }
    expect(state.deadLetters).toEqual([])
  })

  it('a model on the v2 specification (AI SDK 5 providers) runs a turn with a tool, its usage stored as numbers', async () => {
    const { runs, ship } = countingTool()
    const legacy = v2Model([
      toolCalls({ toolCallId: 'call_0', toolName: 'ship', input: { orderId: 'o1' } }),
      text('Shipped.'),
    ])
    const a = track(
      agent({
        name: 'v2',
        model: legacy.model,
        tools: { ship },
        logger: quiet,
        retry: fast,
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'ship o1')))
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(state.active).toBeNull()
    expect(textOf(state.messages.at(-1))).toBe('Shipped.')
    expect(runs.count).toBe(1)
    const completed = (await eventsOf(a, 's')).filter(
      (event) => event.type === 'ai.generation.completed',
    )
    expect(completed.at(-1)?.payload).toMatchObject({
      outcome: 'success',
      finishReason: 'stop',
      usage: { inputTokens: expect.any(Number), outputTokens: 5 },
    })
  })

  it('a step whose output is too large to store fails the turn at once with the reason; retry() runs the step again', async () => {
    // Random text: the store compresses what it can, so only what cannot be compressed is too large.
    const huge = randomBytes(400_000).toString('base64')
    const scripted = scriptedModel([
      [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 't1' },
        { type: 'text-delta', id: 't1', delta: huge },
        { type: 'text-end', id: 't1' },
        ...text('').slice(-1),
      ],
      text('Done, without the essay.'),
    ])
    const a = track(agent({ name: 'big', model: scripted.model, logger: quiet, retry: fast }))
    await a.session('s').append(...inputs.message(userMessage('m1', 'write an essay')))
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(state.active?.phase).toBe('failed')
    expect(state.active?.error).toMatch(/^A2 could not store the model's output/)
    expect(state.active?.error).toMatch(/bytes after compression; the limit is/)
    expect(scripted.calls).toHaveLength(1)
    expect(state.deadLetters).toEqual([])

    const turnId = state.active?.turnId as string
    await a.session('s').append(...inputs.retry({ turnId, retryId: 'r1' }))
    await a.runtime.idle()
    const after = await a.session('s').state()
    expect(after.state.active).toBeNull()
    expect(textOf(after.state.messages.at(-1))).toBe('Done, without the essay.')
    expect(scripted.calls).toHaveLength(2)
  })

  it('a step whose output is too large to store after it called a tool ends on that call, saying why: the tool runs once and the turn goes on, with no Retry to ask the model for it again', async () => {
    const { runs, ship } = countingTool()
    const huge = randomBytes(400_000).toString('base64')
    const scripted = scriptedModel([
      [
        ...toolCalls({ toolCallId: 'call_0', toolName: 'ship', input: { orderId: 'o1' } }).slice(
          0,
          -1,
        ),
        { type: 'text-start', id: 't1' },
        { type: 'text-delta', id: 't1', delta: huge },
        { type: 'text-end', id: 't1' },
        ...toolCalls().slice(-1),
      ],
      text('Shipped, without the essay.'),
    ])
    const a = track(
      agent({ name: 'big', model: scripted.model, tools: { ship }, logger: quiet, retry: fast }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'ship o1 and write an essay')))
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(state.active).toBeNull()
    expect(textOf(state.messages.at(-1))).toBe('Shipped, without the essay.')
    expect(runs.count).toBe(1)
    expect(scripted.calls).toHaveLength(2)
    const completed = (await eventsOf(a, 's')).filter(
      (event) => event.type === 'ai.generation.completed',
    )
    expect(completed[0]?.payload).toMatchObject({
      outcome: 'success',
      finishReason: 'tool-calls',
      error: expect.stringMatching(/^A2 could not store the model's output/),
    })
  })

  it('a model step whose lane keeps failing is given up after the retry policy attempts: the turn fails with the reason instead of "Starting…" forever, and retry() runs it once the cause is gone', async () => {
    const { runs, ship } = countingTool()
    const scripted = scriptedModel([
      toolCalls({ toolCallId: 'call_0', toolName: 'ship', input: { orderId: 'o1' } }),
      text('Shipped.'),
      text('Shipped for real.'),
    ])
    // The store refuses to record the end of a step (a transient fault that
    // outlasts the retries): the first attempt streams, calls the tool, and
    // fails; each later one tries to end that step where it stopped.
    const memory = memoryEventStore()
    let broken = true
    const store: EventStore = {
      ...memory,
      append: (sessionId, events, options) =>
        broken && events.some((event) => event.type === 'ai.generation.completed')
          ? Promise.reject(new Error('ThrottlingException: Rate exceeded'))
          : memory.append(sessionId, events, options),
    }
    const a = track(
      agent({
        name: 'flaky',
        model: scripted.model,
        tools: { ship },
        store,
        logger: quiet,
        retry: fast,
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'ship o1')))
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(state.active?.phase).toBe('failed')
    expect(state.active?.error).toBe(
      'The model step was given up after 5 attempts: ThrottlingException: Rate exceeded',
    )
    expect(state.deadLetters).toEqual([
      expect.objectContaining({ lane: 'generation', attempts: 5, requestId: expect.any(String) }),
    ])
    // Bounded: the step recorded its call, so the takeovers end it there
    // (takeover-rule.ts, finish-replaced-step) rather than ask the model
    // again: one model call, one tool run.
    expect(scripted.calls).toHaveLength(1)
    expect(runs.count).toBe(1)
    const deadLetters = (await eventsOf(a, 's')).filter(
      (event) => event.type === 'ai.handler.dead-lettered',
    )
    expect(deadLetters).toHaveLength(1)

    broken = false
    await a
      .session('s')
      .append(...inputs.retry({ turnId: state.active?.turnId as string, retryId: 'r1' }))
    await a.runtime.idle()
    const after = await a.session('s').state()
    expect(after.state.active).toBeNull()
    expect(textOf(after.state.messages.at(-1))).toBe('Shipped.')
  })

  it("a tool output too large to store fails the call once with the reason, and the model's next step sees the error", async () => {
    let runs = 0
    const dump = tool({
      description: 'Dump the database',
      inputSchema: z.object({}),
      execute: async () => {
        runs++
        return randomBytes(400_000).toString('base64')
      },
    })
    const scripted = scriptedModel([
      toolCalls({ toolCallId: 'call_0', toolName: 'dump', input: {} }),
      text('The dump was too large.'),
    ])
    const a = track(
      agent({ name: 'dump', model: scripted.model, tools: { dump }, logger: quiet, retry: fast }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'dump it')))
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(state.active).toBeNull()
    expect(runs).toBe(1)
    expect(state.messages.at(-1)?.parts).toContainEqual(
      expect.objectContaining({ toolCallId: 'call_0', state: 'output-error' }),
    )
    const prompt = JSON.stringify(scripted.calls[1]?.prompt)
    expect(prompt).toContain("A2 could not store the tool's output")
    expect(textOf(state.messages.at(-1))).toBe('The dump was too large.')
  })
})
