import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agent } from '../../../../shared/agent/index.ts'
import { stepCompaction, thresholdFor } from '../../../../shared/agent/model-step/compaction.ts'
import { agentContract, inputs, isCompactionPart } from '../../../../shared/ai.ts'
import { initialAIState } from '../../../../shared/model/state/ai-state.ts'
import { memoryEventStore } from '../../../../shared/stores/memory/memory-event-store.ts'
import { type Step, scriptedModel, text } from '../../../../shared/testing/scripted-model.ts'
import { eventsOf, textOf, track, until, userMessage } from '../../../support/agent-log.ts'

const long = (label: string) => `${label}: ${'lorem ipsum dolor sit amet '.repeat(20)}`
const promptText = (call: { prompt: unknown } | undefined) => JSON.stringify(call?.prompt ?? '')

async function turn(
  a: {
    session(id: string): { append(...events: ReturnType<typeof inputs.message>): Promise<unknown> }
    runtime: { idle(): Promise<void> }
  },
  id: string,
  content: string,
) {
  await a.session('s').append(...inputs.message(userMessage(id, content)))
  await a.runtime.idle()
}

describe('compaction', () => {
  it('a long conversation compacts twice: later requests get the summary plus what follows; state keeps everything', async () => {
    // Summary requests (toolChoice none) and answers are scripted apart, so
    // the test does not depend on which turn crosses the threshold.
    const summaries = ['SUMMARY-ONE', 'SUMMARY-TWO']
    const answers = [
      long('answer 1'),
      long('answer 2'),
      long('answer 3'),
      long('answer 4'),
      'answer 5',
    ]
    const steps = (options: { toolChoice?: { type: string } }): Step | undefined => {
      const next = options.toolChoice?.type === 'none' ? summaries.shift() : answers.shift()
      return next === undefined ? undefined : text(next)
    }
    const script = scriptedModel(steps)
    const a = track(
      agent({
        name: 'compacting',
        model: script.model,
        instructions: 'Be helpful.',
        harness: {
          type: 'ai-sdk',
          compaction: { thresholdTokens: 260, instructions: 'Preserve exact IDs.' },
        },
      }),
    )
    await turn(a, 'u1', 'question 1')
    await turn(a, 'u2', 'question 2')
    await turn(a, 'u3', 'question 3')
    await turn(a, 'u4', 'question 4')
    await turn(a, 'u5', 'question 5')

    const calls = script.calls
    const summaryCalls = calls.flatMap((call, at) => (call.toolChoice?.type === 'none' ? [at] : []))
    expect(summaryCalls).toHaveLength(2)
    const [first, second] = summaryCalls as [number, number]
    // The summary request: same instructions, the prompt as its prefix, the extra guidance.
    expect(promptText(calls[first])).toContain('Be helpful.')
    expect(promptText(calls[first])).toContain('Preserve exact IDs.')
    expect(promptText(calls[first])).toContain('question 1')
    // Between the summaries, requests carry the first summary instead of what it covers.
    for (const call of calls.slice(first + 1, second)) {
      expect(promptText(call)).toContain('SUMMARY-ONE')
      expect(promptText(call)).not.toContain('question 1')
    }
    // The second summary covers the first and what followed it; later requests carry only it.
    expect(promptText(calls[second])).toContain('SUMMARY-ONE')
    for (const call of calls.slice(second + 1)) {
      expect(promptText(call)).toContain('SUMMARY-TWO')
      expect(promptText(call)).not.toContain('SUMMARY-ONE')
    }
    expect(promptText(calls.at(-1))).toContain('question 5')

    const { state } = await a.session('s').state()
    expect(state.messages.filter((m) => m.role === 'user').map((m) => m.id)).toEqual([
      'u1',
      'u2',
      'u3',
      'u4',
      'u5',
    ])
    const parts = state.messages.flatMap((m) => m.parts.filter(isCompactionPart))
    expect(parts.map((part) => part.data.status)).toEqual(['completed', 'completed'])
    expect(parts[1]?.data).toMatchObject({ summary: 'SUMMARY-TWO', thresholdTokens: 260 })
    expect(parts[1]?.data.inputTokens).toBeGreaterThan(260)
    expect(state.compaction).toMatchObject({ status: 'completed', summary: 'SUMMARY-TWO' })
    expect(textOf(state.messages.at(-1))).toBe('answer 5')
    // The summary request never appears as a turn.
    expect(state.messages.some((m) => textOf(m).includes('SUMMARY'))).toBe(false)
  })

  it('an empty summary fails the generation and leaves the previous context; retry() compacts and answers', async () => {
    const script = scriptedModel([
      text(long('answer 1')),
      text('   '),
      text('SUMMARY'),
      text('answer 2'),
    ])
    const a = track(
      agent({
        name: 'c',
        model: script.model,
        harness: { type: 'ai-sdk', compaction: { thresholdTokens: 120 } },
      }),
    )
    await turn(a, 'u1', 'question 1')
    await turn(a, 'u2', 'question 2')
    let { state } = await a.session('s').state()
    expect(state.active).toMatchObject({
      phase: 'failed',
      error: expect.stringContaining('empty summary'),
    })
    expect(state.compaction?.status).toBe('failed')
    expect(state.compacted).toBeNull()
    await a
      .session('s')
      .append(...inputs.retry({ turnId: state.active?.turnId as string, retryId: 'r1' }))
    await a.runtime.idle()
    ;({ state } = await a.session('s').state())
    expect(textOf(state.messages.at(-1))).toBe('answer 2')
    expect(state.compacted?.summary).toBe('SUMMARY')
  })

  it('a crash during compaction: the new attempt marks it interrupted and compacts again', async () => {
    const store = memoryEventStore()
    const first = scriptedModel([text(long('answer 1')), { hang: true }])
    const crashed = track(
      agent({
        name: 'c',
        model: first.model,
        store,
        claimTtlMs: 150,
        harness: { type: 'ai-sdk', compaction: { thresholdTokens: 120 } },
      }),
    )
    await turn(crashed, 'u1', 'question 1')
    await crashed.session('s').append(...inputs.message(userMessage('u2', 'question 2')))
    await until(
      async () => (await crashed.session('s').state()).state.compaction?.status === 'running',
    )
    crashed.runtime.close()

    const second = scriptedModel([text('SUMMARY'), text('answer 2')])
    const recovered = track(
      agent({
        name: 'c',
        model: second.model,
        store,
        claimTtlMs: 150,
        retry: { baseDelayMs: 50 },
        harness: { type: 'ai-sdk', compaction: { thresholdTokens: 120 } },
      }),
    )
    await recovered.runtime.wakeAll('s')
    const { state } = await until(async () => {
      const current = await recovered.session('s').state()
      return current.state.active === null && current
    }, 5_000)
    // The superseded attempt's output leaves the response with it; the new one compacted.
    const statuses = state.messages
      .flatMap((m) => m.parts.filter(isCompactionPart))
      .map((part) => part.data.status)
    expect(statuses).toEqual(['completed'])
    expect(state.compacted?.summary).toBe('SUMMARY')
    expect(textOf(state.messages.at(-1))).toBe('answer 2')
    const compactions = (await eventsOf(recovered, 's')).filter((event) =>
      event.type.startsWith('ai.compaction'),
    )
    expect(
      compactions.find((event) => event.type === 'ai.compaction.failed')?.payload,
    ).toMatchObject({ status: 'interrupted' })
    expect(compactions.map((event) => event.type)).toEqual([
      'ai.compaction.started',
      'ai.compaction.failed',
      'ai.compaction.started',
      'ai.compaction.completed',
    ])
  })

  it('custom shouldCompact/compact callbacks decide and write the summary', async () => {
    const script = scriptedModel([text('answer 1'), text('answer 2')])
    const a = track(
      agent({
        name: 'c',
        model: script.model,
        harness: {
          type: 'ai-sdk',
          compaction: {
            shouldCompact: ({ messages }) => messages.length > 2,
            compact: ({ messages }) => `custom summary of ${messages.length} messages`,
          },
        },
      }),
    )
    await turn(a, 'u1', 'question 1')
    await turn(a, 'u2', 'question 2')
    expect(promptText(script.calls[1])).toContain('custom summary of 2 messages')
    expect(script.calls).toHaveLength(2)
  })

  it('Given a compaction resolver, Then "a resolver can choose per generation, for example from session.state(settingsReducer)"', async () => {
    const settings = agentContract({
      name: 'settings',
      events: { 'settings.changed': z.object({ compact: z.boolean() }) },
      reducer: {
        name: 'settings.v1',
        initialState: { compact: false },
        fold: (state, event) =>
          event.type === 'settings.changed'
            ? { compact: (event.payload as { compact: boolean }).compact }
            : state,
      },
    })
    const script = scriptedModel([text('answer 1'), text('answer 2'), text('answer 3')])
    const seen: unknown[] = []
    const a = track(
      agent({
        contract: settings,
        model: script.model,
        harness: {
          type: 'ai-sdk',
          compaction: ({ state, event }) => {
            seen.push([event.payload.turnId, state.compact])
            return state.compact
              ? {
                  shouldCompact: () => true,
                  compact: ({ messages }) => `summary of ${messages.length} messages`,
                }
              : false
          },
        },
      }),
    )
    await turn(a, 'u1', 'question 1')
    await turn(a, 'u2', 'question 2')
    await a.session('s').append({ type: 'settings.changed', payload: { compact: true } })
    await turn(a, 'u3', 'question 3')

    expect(seen).toEqual([
      ['a2.ai:turn:u1', false],
      ['a2.ai:turn:u2', false],
      ['a2.ai:turn:u3', true],
    ])
    expect(promptText(script.calls[1])).not.toContain('summary of')
    expect(promptText(script.calls[2])).toContain('summary of 4 messages')
    const { state } = await a.session('s').state()
    expect(state.compacted?.summary).toBe('summary of 4 messages')
    expect(state.messages).toHaveLength(6)
  })

  it('Given a compaction resolver that turns compaction on with provider-executed tools, Then the generation fails with the configuration error', async () => {
    const a = track(
      agent({
        name: 'c',
        model: scriptedModel([text('never')]).model,
        tools: { search: { type: 'provider', id: 'p.search', args: {}, inputSchema: {} } as never },
        harness: { type: 'ai-sdk', compaction: () => ({ thresholdTokens: 10 }) },
      }),
    )
    await turn(a, 'u1', 'question 1')
    const { state } = await a.session('s').state()
    expect(state.active?.phase).toBe('failed')
    expect(state.active?.error).toMatch(/provider-executed tools \(search\)/)
  })

  it('the default threshold is 75% of the catalog context window, lowered for a larger maxOutputTokens', () => {
    const state = {
      ...initialAIState(),
      modelMetadata: { 'm/x': { status: 'resolved' as const, contextWindow: 100_000 } },
    }
    const model = { model: 'm/x', modelId: 'm/x', gateway: true }
    const agentShape = { tools: {}, customGenerate: false }
    const on = stepCompaction(undefined, agentShape)
    expect(thresholdFor(on, undefined, model, state)).toBe(75_000)
    expect(thresholdFor(on, 40_000, model, state)).toBe(60_000)
    expect(
      thresholdFor(stepCompaction({ thresholdTokens: 5 }, agentShape), undefined, model, state),
    ).toBe(5)
    expect(thresholdFor(stepCompaction(false, agentShape), undefined, model, state)).toBeUndefined()
    // No catalog entry yet: no compaction (the first prompt goes as it is).
    expect(thresholdFor(on, undefined, { ...model, modelId: 'm/unknown' }, state)).toBeUndefined()
    // A custom generate compacts only when compaction is configured.
    expect(stepCompaction(undefined, { ...agentShape, customGenerate: true })).toEqual({
      on: false,
    })
  })

  it('configuring compaction with provider-executed tools throws with a clear message', () => {
    expect(() =>
      agent({
        name: 'c',
        model: 'm/x',
        tools: { search: { type: 'provider', id: 'p.search', args: {}, inputSchema: {} } as never },
        harness: { type: 'ai-sdk', compaction: { thresholdTokens: 10 } },
      }),
    ).toThrow(/provider-executed tools \(search\)/)
  })
})
