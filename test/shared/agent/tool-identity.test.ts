import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { supportTools } from '../../../functions/example/support-agent.ts'
import { agent } from '../../../shared/agent/index.ts'
import { inputs } from '../../../shared/ai.ts'
import { scriptedModel, text, toolCalls } from '../../../shared/testing/scripted-model.ts'
import {
  eventsOf,
  stepOrder,
  textOf,
  track,
  typesOf,
  until,
  userMessage,
} from '../../support/agent-log.ts'

// Many providers number tool calls per response (`call_0`, `call_1`, ...), so
// the same ID comes back in a later step or turn. A2 keys a logical call by
// its generation and the provider's ID.

function lookupTool(effects: string[]) {
  return tool({
    inputSchema: z.object({ ticketId: z.string() }),
    execute: async ({ ticketId }) => {
      effects.push(ticketId)
      return { ticketId, status: 'open' }
    },
  })
}

/** Waits (briefly) until `turns` responses completed; a turn that hangs fails here. */
async function settled(a: Parameters<typeof eventsOf>[0], turns: number): Promise<void> {
  await until(async () => {
    const completed = (await eventsOf(a, 's')).filter(
      (event) => event.type === 'ai.message.completed',
    )
    return completed.length >= turns
  }, 3_000)
  await a.runtime.idle()
}

const TURN = [
  'ai.control.requested',
  'ai.message.created',
  'ai.control.committed',
  'ai.control.decided',
  'ai.generation.requested',
  'ai.generation.started',
  'ai.tool.called',
  'ai.generation.completed',
  'ai.tool.result',
  'ai.generation.requested',
  'ai.generation.started',
  'ai.generation.completed',
  'ai.message.completed',
]

describe('tool identity when a provider reuses tool-call IDs', () => {
  it('Given call_0 in turn 1, When turn 2 calls call_0 again, Then it runs as its own call: tool identity holds "even if a provider reuses tool-call IDs"', async () => {
    const effects: string[] = []
    const script = scriptedModel([
      toolCalls({ toolCallId: 'call_0', toolName: 'lookup', input: { ticketId: 'T-1' } }),
      text('T-1 is open.'),
      toolCalls({ toolCallId: 'call_0', toolName: 'lookup', input: { ticketId: 'T-2' } }),
      text('T-2 is open.'),
    ])
    const a = track(
      agent({ name: 'reuse', model: script.model, tools: { lookup: lookupTool(effects) } }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Status of T-1?')))
    await settled(a, 1)
    await a.session('s').append(...inputs.message(userMessage('m2', 'And T-2?')))
    await settled(a, 2)

    expect(effects).toEqual(['T-1', 'T-2'])
    expect(stepOrder(await typesOf(a, 's'))).toEqual([...TURN, ...TURN])
    const results = (await eventsOf(a, 's')).filter((event) => event.type === 'ai.tool.result')
    expect(new Set(results.map((event) => event.id)).size).toBe(2)
    const { state } = await a.session('s').state()
    expect(state.tools).toEqual([])
    expect(state.messages[3]?.parts.find((part) => part.type === 'tool-lookup')).toMatchObject({
      toolCallId: 'call_0',
      state: 'output-available',
      output: { ticketId: 'T-2' },
    })
    expect(textOf(state.messages[3])).toBe('T-2 is open.')
  })

  it('Given call_0 approved in turn 1, When turn 2 calls call_0 again and it is approved, Then it runs and the turn finishes', async () => {
    const effects: string[] = []
    const script = scriptedModel([
      toolCalls({ toolCallId: 'call_0', toolName: 'lookup', input: { ticketId: 'T-1' } }),
      text('one'),
      toolCalls({ toolCallId: 'call_0', toolName: 'lookup', input: { ticketId: 'T-2' } }),
      text('two'),
    ])
    const a = track(
      agent({
        name: 'reuse-approved',
        model: script.model,
        tools: { lookup: lookupTool(effects) },
        harness: { type: 'ai-sdk', generation: { toolApproval: { lookup: 'user-approval' } } },
      }),
    )
    for (const [turn, question] of ['T-1?', 'T-2?'].entries()) {
      const id = `m${turn + 1}`
      await a.session('s').append(...inputs.message(userMessage(id, question)))
      const pending = await until(
        async () => (await a.session('s').state()).state.pendingApprovals[0],
      )
      expect(pending.toolCallId).toBe('call_0')
      await a.session('s').append(...inputs.approval(pending, { approved: true }))
      await settled(a, turn + 1)
    }
    expect(effects).toEqual(['T-1', 'T-2'])
    const { state } = await a.session('s').state()
    expect(textOf(state.messages[3])).toBe('two')
    expect(
      (await eventsOf(a, 's')).filter((event) => event.type === 'ai.message.completed'),
    ).toHaveLength(2)
  })

  it('Given call_0 in step 1, When step 2 of the same response calls call_0 again, Then both calls run and each part keeps its own output', async () => {
    const effects: string[] = []
    const script = scriptedModel([
      toolCalls({ toolCallId: 'call_0', toolName: 'lookup', input: { ticketId: 'T-1' } }),
      toolCalls({ toolCallId: 'call_0', toolName: 'lookup', input: { ticketId: 'T-2' } }),
      text('Both are open.'),
    ])
    const a = track(
      agent({ name: 'reuse-steps', model: script.model, tools: { lookup: lookupTool(effects) } }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'T-1 then T-2?')))
    await settled(a, 1)
    expect(effects).toEqual(['T-1', 'T-2'])
    const { state } = await a.session('s').state()
    const parts = state.messages[1]?.parts.filter((part) => part.type === 'tool-lookup')
    expect(parts).toEqual([
      expect.objectContaining({
        toolCallId: 'call_0',
        output: { ticketId: 'T-1', status: 'open' },
      }),
      expect.objectContaining({
        toolCallId: 'call_0',
        output: { ticketId: 'T-2', status: 'open' },
      }),
    ])
    expect(textOf(state.messages[1])).toBe('Both are open.')
  })

  it('Given the seed\'s setReminder naming its timer after toolCallId, When step 2 calls call_0 again while the first timer is pending, Then both timers are set: "even if a provider reuses tool-call IDs"', async () => {
    const script = scriptedModel([
      toolCalls({
        toolCallId: 'call_0',
        toolName: 'setReminder',
        input: { delaySeconds: 60, reminder: 'stretch' },
      }),
      toolCalls({
        toolCallId: 'call_0',
        toolName: 'setReminder',
        input: { delaySeconds: 120, reminder: 'drink water' },
      }),
      text('Both are set.'),
    ])
    const a = track(
      agent({
        name: 'reuse-timers',
        model: script.model,
        tools: { setReminder: supportTools.setReminder },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Remind me twice')))
    await settled(a, 1)
    const { state } = await a.session('s').state()
    const outputs = state.messages[1]?.parts
      .filter((part) => part.type === 'tool-setReminder')
      .map((part) => (part as { output?: unknown; errorText?: string }).output ?? part)
    expect(outputs).toEqual([
      { scheduled: true, delaySeconds: 60 },
      { scheduled: true, delaySeconds: 120 },
    ])
  })
})

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
}

/** A provider tool: the provider runs it and may answer in the same response. */
function webSearch(options: { deferred?: boolean } = {}) {
  return {
    type: 'provider' as const,
    id: 'test.web_search' as const,
    args: {},
    isProviderExecuted: true as const,
    inputSchema: z.object({ query: z.string() }),
    ...(options.deferred ? { supportsDeferredResults: true } : {}),
  }
}

describe('provider-executed tools', () => {
  it('Given a provider-executed call answered in its own response, Then "an approved provider-executed call can satisfy that join through its response": the call completes and the turn finishes', async () => {
    const script = scriptedModel([
      [
        { type: 'stream-start', warnings: [] },
        {
          type: 'tool-call',
          toolCallId: 'ws_1',
          toolName: 'webSearch',
          input: JSON.stringify({ query: 'a2' }),
          providerExecuted: true,
        },
        { type: 'tool-result', toolCallId: 'ws_1', toolName: 'webSearch', result: { hits: 3 } },
        { type: 'text-start', id: 't1' },
        { type: 'text-delta', id: 't1', delta: 'Found 3.' },
        { type: 'text-end', id: 't1' },
        { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
      ],
    ])
    const a = track(
      agent({ name: 'provider-tools', model: script.model, tools: { webSearch: webSearch() } }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Search for a2')))
    await settled(a, 1)

    expect(await typesOf(a, 's')).toEqual([
      'ai.control.requested',
      'ai.message.created',
      'ai.control.committed',
      'ai.control.decided',
      'ai.generation.requested',
      'ai.generation.started',
      'ai.tool.called',
      'ai.tool.result',
      'ai.generation.completed',
      'ai.message.completed',
    ])
    const result = (await eventsOf(a, 's')).find((event) => event.type === 'ai.tool.result')
    expect(result?.payload).toMatchObject({
      toolCallId: 'ws_1',
      outcome: 'output',
      output: { hits: 3 },
      providerExecuted: true,
    })
    const { state } = await a.session('s').state()
    expect(state.tools).toEqual([])
    expect(state.messages[1]?.parts.find((part) => part.type === 'tool-webSearch')).toMatchObject({
      state: 'output-available',
      output: { hits: 3 },
      providerExecuted: true,
    })
    expect(textOf(state.messages[1])).toBe('Found 3.')
    expect(script.calls).toHaveLength(1)
  })

  it('Given a provider tool with deferred results and no result in the response, Then the turn "waits for its provider result" until inputs.toolResult() submits it', async () => {
    const script = scriptedModel([
      [
        { type: 'stream-start', warnings: [] },
        {
          type: 'tool-call',
          toolCallId: 'ws_1',
          toolName: 'webSearch',
          input: JSON.stringify({ query: 'a2' }),
          providerExecuted: true,
        },
        { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
      ],
      text('The search found 3.'),
    ])
    const a = track(
      agent({
        name: 'deferred-tools',
        model: script.model,
        tools: { webSearch: webSearch({ deferred: true }) },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Search for a2')))
    await a.runtime.idle()
    let { state } = await a.session('s').state()
    expect(state.active?.phase).toBe('waiting')
    const call = state.tools[0]
    expect(call).toMatchObject({ toolCallId: 'ws_1', status: 'running', providerExecuted: true })
    if (!call) throw new Error('no call')
    await a.session('s').append(...inputs.toolResult({ ...call, output: { hits: 3 } }))
    await settled(a, 1)
    ;({ state } = await a.session('s').state())
    expect(textOf(state.messages[1])).toBe('The search found 3.')
    expect(state.tools).toEqual([])
  })
})
