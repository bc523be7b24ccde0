import { registerTelemetry, type Telemetry, tool, type UIMessageChunk } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agent } from '../../../shared/agent/index.ts'
import type { AgentMetric, AgentMetrics } from '../../../shared/agent/wiring/agent-metrics.ts'
import { meteredStore, metricsOfEvents } from '../../../shared/agent/wiring/metered-store.ts'
import { inputs } from '../../../shared/ai.ts'
import { memoryEventStore } from '../../../shared/stores/memory/memory-event-store.ts'
import { scriptedModel, text, toolCalls } from '../../../shared/testing/scripted-model.ts'
import { eventsOf, track, userMessage } from '../../support/agent-log.ts'

const silent = { info() {}, warn() {}, error() {} }

/** A sink that keeps every figure, and sums them by name. */
function recorder() {
  const seen: [AgentMetric, number][] = []
  const metrics: AgentMetrics = { record: (metric, value) => void seen.push([metric, value]) }
  const total = (metric: AgentMetric): number =>
    seen.filter(([name]) => name === metric).reduce((sum, [, value]) => sum + value, 0)
  const values = (metric: AgentMetric): number[] =>
    seen.filter(([name]) => name === metric).map(([, value]) => value)
  return { metrics, seen, total, values }
}

async function turn(a: ReturnType<typeof agent>, content = 'Hello?') {
  await a.session('s').append(...inputs.message(userMessage('m1', content)))
  await a.runtime.idle()
}

describe('the runtime metrics', () => {
  it('counts a turn started when the controller commits turn.start, and completed when its response ends', async () => {
    const sink = recorder()
    const a = track(
      agent({ name: 'm', model: scriptedModel([text('Hi.')]).model, metrics: sink.metrics }),
    )
    await turn(a)
    expect(sink.total('TurnsStarted')).toBe(1)
    expect(sink.total('TurnsCompleted')).toBe(1)
    expect(sink.total('TurnsFailed')).toBe(0)
  })

  it('counts a failed model step as a failed turn', async () => {
    const sink = recorder()
    const a = track(
      agent({
        name: 'm',
        model: scriptedModel([{ error: 'provider down' }]).model,
        metrics: sink.metrics,
        logger: silent,
      }),
    )
    await turn(a)
    expect(sink.total('TurnsStarted')).toBe(1)
    expect(sink.total('TurnsFailed')).toBe(1)
    expect(sink.total('TurnsCompleted')).toBe(0)
  })

  it('reports the tokens of each model step as its ai.generation.completed usage says', async () => {
    const sink = recorder()
    const a = track(
      agent({ name: 'm', model: scriptedModel([text('Hi.')]).model, metrics: sink.metrics }),
    )
    await turn(a)
    const completed = (await eventsOf(a, 's')).find(
      (event) => event.type === 'ai.generation.completed',
    )
    const { usage } = (completed?.payload ?? {}) as {
      usage: { inputTokens: number; outputTokens: number }
    }
    expect(usage.inputTokens).toBeGreaterThan(0)
    expect(sink.values('InputTokens')).toEqual([usage.inputTokens])
    expect(sink.values('OutputTokens')).toEqual([5])
  })

  it('counts tool calls, and as failures only those whose final result is an error', async () => {
    const sink = recorder()
    const a = track(
      agent({
        name: 'm',
        model: scriptedModel([
          toolCalls(
            { toolCallId: 'c1', toolName: 'lookup', input: { q: 'a' } },
            { toolCallId: 'c2', toolName: 'broken', input: { q: 'b' } },
          ),
          text('Done.'),
        ]).model,
        tools: {
          lookup: tool({
            inputSchema: z.object({ q: z.string() }),
            // A preliminary output is not a result yet.
            async *execute({ q }) {
              yield { status: 'looking' }
              yield { found: q }
            },
          }),
          broken: tool({
            inputSchema: z.object({ q: z.string() }),
            execute: async ({ q }): Promise<{ found: string }> => {
              throw new Error(`backend down for ${q}`)
            },
          }),
        },
        metrics: sink.metrics,
      }),
    )
    await turn(a)
    expect(sink.total('ToolCalls')).toBe(2)
    expect(sink.total('ToolFailures')).toBe(1)
  })

  it('counts a dead letter when a lane records one on the session', async () => {
    const sink = recorder()
    const a = track(
      agent({
        name: 'm',
        model: scriptedModel([]).model,
        handlers: {
          'ticket.flagged': async () => {
            throw new Error('always broken')
          },
        },
        retry: { baseDelayMs: 2, maxAttempts: 2 },
        metrics: sink.metrics,
        logger: silent,
      }),
    )
    await a.session('s').append({ id: 'flag-1', type: 'ticket.flagged', payload: {} })
    await a.runtime.idle()
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(sink.total('DeadLetters')).toBe(1)
  })

  it('measures time to first token from the step being requested to its first content chunk', async () => {
    const sink = recorder()
    let clock = 1_000
    const a = track(
      agent({
        name: 'm',
        model: 'unused/model',
        now: () => clock,
        metrics: sink.metrics,
        harness: {
          type: 'ai-sdk',
          generate: ({ event }) => {
            const id = event.payload.responseMessageId
            const chunks: UIMessageChunk[] = [
              { type: 'start', messageId: id },
              { type: 'start-step' },
              { type: 'text-start', id: 't' },
              { type: 'text-delta', id: 't', delta: 'Hi.' },
              { type: 'text-end', id: 't' },
              { type: 'finish-step' },
              { type: 'finish', finishReason: 'stop' },
            ]
            return new ReadableStream({
              pull(controller) {
                const chunk = chunks.shift()
                if (!chunk) return controller.close()
                // The model thinks for 250 ms before its first content.
                if (chunk.type === 'text-delta') clock += 250
                controller.enqueue(chunk)
              },
            })
          },
        },
      }),
    )
    await turn(a)
    expect(sink.values('TimeToFirstToken')).toEqual([250])
  })

  it('counts every append a lane makes, and none of a caller', async () => {
    const sink = recorder()
    const a = track(
      agent({ name: 'm', model: scriptedModel([text('Hi.')]).model, metrics: sink.metrics }),
    )
    await turn(a)
    // The memory store cannot tell write units; DynamoDB's can (write-units.test.ts).
    expect(sink.total('AppendWriteUnits')).toBe(0)
    const lanes = (await eventsOf(a, 's')).filter((event) => event.type !== 'ai.control.requested')
    expect(sink.total('Appends')).toBeGreaterThan(0)
    // Each lane append stores at least one event; the caller's push is not one of them.
    expect(sink.total('Appends')).toBeLessThanOrEqual(lanes.length)
  })

  it("passes the AI SDK's telemetry through to streamText, named by the agent, only when asked", async () => {
    const started: { functionId?: string }[] = []
    const integration: Telemetry = { onStart: (event) => void started.push(event) }
    const quiet = track(agent({ name: 'quiet', model: scriptedModel([text('Hi.')]).model }))
    await turn(quiet)
    const traced = track(
      agent({
        name: 'traced',
        model: scriptedModel([text('Hi.')]).model,
        telemetry: { isEnabled: true, integrations: [integration] },
      }),
    )
    await turn(traced)
    expect(started).toHaveLength(1)
    expect(started[0]?.functionId).toBe('traced')
  })

  it('keeps an integration registered globally with the AI SDK quiet unless telemetry is turned on', async () => {
    const started: { functionId?: string }[] = []
    registerTelemetry({ onStart: (event) => void started.push(event) })
    try {
      await turn(track(agent({ name: 'quiet', model: scriptedModel([text('Hi.')]).model })))
      expect(started).toHaveLength(0)
      const traced = track(
        agent({
          name: 'traced',
          model: scriptedModel([text('Hi.')]).model,
          telemetry: { isEnabled: true },
        }),
      )
      await turn(traced)
      expect(started.map((event) => event.functionId)).toEqual(['traced'])
    } finally {
      globalThis.AI_SDK_TELEMETRY_INTEGRATIONS = []
    }
  })

  it("reports a compaction's summary request to the telemetry too: it is a model call", async () => {
    const started: { functionId?: string }[] = []
    const summaries = ['SUMMARY']
    const script = scriptedModel((options: { toolChoice?: { type: string } }) =>
      options.toolChoice?.type === 'none'
        ? text(summaries.shift() ?? 'SUMMARY')
        : text(`answer ${'lorem ipsum dolor sit amet '.repeat(20)}`),
    )
    const a = track(
      agent({
        name: 'compacting',
        model: script.model,
        harness: { type: 'ai-sdk', compaction: { thresholdTokens: 120 } },
        telemetry: { integrations: [{ onStart: (event) => void started.push(event) }] },
      }),
    )
    for (const [id, content] of [
      ['u1', 'question 1'],
      ['u2', 'question 2'],
      ['u3', 'question 3'],
    ] as const) {
      await a.session('s').append(...inputs.message(userMessage(id, content)))
      await a.runtime.idle()
    }
    const summaryCalls = script.calls.filter((call) => call.toolChoice?.type === 'none')
    expect(summaryCalls.length).toBeGreaterThan(0)
    expect(started).toHaveLength(script.calls.length)
  })

  it('sends a run given its own metrics there, not to the agent option', async () => {
    const own = recorder()
    const run = recorder()
    const a = track(
      agent({
        name: 'm',
        model: scriptedModel([text('Hi.')]).model,
        metrics: own.metrics,
        dispatcher: { wake: async () => {} },
      }),
    )
    // Written undecided (the log's own append), so admission's run decides it.
    await a.runtime.log.session('s').append(inputs.message(userMessage('m1', 'Hi')))
    await a.runtime.run({ sessionId: 's', lane: 'admission' }, { metrics: run.metrics })
    expect(run.total('TurnsStarted')).toBe(1)
    expect(own.total('TurnsStarted')).toBe(0)
  })

  it('never lets a failing sink fail the turn', async () => {
    const a = track(
      agent({
        name: 'm',
        model: scriptedModel([text('Hi.')]).model,
        metrics: {
          record: () => {
            throw new Error('sink down')
          },
        },
      }),
    )
    await turn(a)
    const { state } = await a.session('s').state()
    expect(state.messages).toHaveLength(2)
  })
})

describe('the metered store', () => {
  it("counts a summary's tokens too: compaction is a model call, billed like any other", () => {
    const figures = metricsOfEvents([
      {
        id: 'c',
        type: 'ai.compaction.completed',
        payload: {
          compactionId: 'c',
          summary: 'S',
          upToMessageId: 'm',
          usage: { inputTokens: 900, outputTokens: 80 },
        },
        sessionId: 's',
        life: '',
        index: 7,
        timestamp: 0,
      },
    ])
    expect(figures).toEqual([
      ['InputTokens', 900],
      ['OutputTokens', 80],
    ])
  })

  it('records an append once, with the write units its store reports, and a replay not at all', async () => {
    const sink = recorder()
    const memory = memoryEventStore()
    const store = meteredStore(
      {
        ...memory,
        append: async (...args) => ({ ...(await memory.append(...args)), writeUnits: 6 }),
      },
      sink.metrics,
    )
    const event = { id: 'e1', type: 'note.added', payload: { text: 'hi' } }
    await store.append('s', [event])
    const replay = await memory.append('s', [event])
    expect(replay.replayed).toBe(true)
    await store.append('s', [event])
    expect(sink.total('Appends')).toBe(1)
    expect(sink.total('AppendWriteUnits')).toBe(6)
    // Its other methods are the store's own.
    expect(await store.head('s')).toBe(1)
  })
})
