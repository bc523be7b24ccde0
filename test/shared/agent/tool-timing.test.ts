import type { LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agent } from '../../../shared/agent/index.ts'
import { inputs } from '../../../shared/ai.ts'
import type { EventStore } from '../../../shared/log/event-store.ts'
import { memoryEventStore } from '../../../shared/stores/memory/memory-event-store.ts'
import { scriptedModel, text } from '../../../shared/testing/scripted-model.ts'
import { eventsOf, textOf, track, typesOf, until, userMessage } from '../../support/agent-log.ts'

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
}

const toolCall = (toolCallId: string, ticketId: string): LanguageModelV4StreamPart => ({
  type: 'tool-call',
  toolCallId,
  toolName: 'lookup',
  input: JSON.stringify({ ticketId }),
})

const finish: LanguageModelV4StreamPart = {
  type: 'finish',
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage,
}

function lookupTool(effects: string[]) {
  return tool({
    inputSchema: z.object({ ticketId: z.string() }),
    execute: async ({ ticketId }) => {
      effects.push(ticketId)
      return { ticketId, status: 'open' }
    },
  })
}

describe('tools start when their input is ready, not when the step closes', () => {
  it('Given a step still streaming after a tool call, Then "independent tools run concurrently as soon as their inputs and authorization are ready", and "tool results and generation completion can arrive in either order"', async () => {
    const effects: string[] = []
    const script = scriptedModel([
      {
        hang: true,
        parts: [{ type: 'stream-start', warnings: [] }, toolCall('c1', 'T-1')],
        afterRelease: [finish],
      },
      text('T-1 is open.'),
    ])
    const a = track(
      agent({ name: 'early-tools', model: script.model, tools: { lookup: lookupTool(effects) } }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Status of T-1?')))
    await until(async () => (await typesOf(a, 's')).includes('ai.tool.result'))
    // The step is still open: the tool ran on its input alone.
    expect(effects).toEqual(['T-1'])
    expect(await typesOf(a, 's')).not.toContain('ai.generation.completed')
    expect((await a.session('s').state()).state.active?.phase).toBe('generating')

    script.release()
    await a.runtime.idle()
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
      'ai.generation.requested',
      'ai.generation.started',
      'ai.generation.completed',
      'ai.message.completed',
    ])
    // The next step waited for both, and saw the result.
    expect(JSON.stringify(script.calls[1]?.prompt)).toContain('"status":"open"')
    const { state } = await a.session('s').state()
    expect(state.messages[1]?.parts.find((part) => part.type === 'tool-lookup')).toMatchObject({
      state: 'output-available',
      output: { ticketId: 'T-1', status: 'open' },
    })
    expect(textOf(state.messages[1])).toBe('T-1 is open.')
  })

  it('Given a call that needs approval, Then the approval is asked while the step still streams, and an approved call runs before the step closes', async () => {
    const effects: string[] = []
    const script = scriptedModel([
      {
        hang: true,
        parts: [{ type: 'stream-start', warnings: [] }, toolCall('c1', 'T-9')],
        afterRelease: [finish],
      },
      text('Done.'),
    ])
    const a = track(
      agent({
        name: 'early-approval',
        model: script.model,
        tools: { lookup: lookupTool(effects) },
        harness: { type: 'ai-sdk', generation: { toolApproval: { lookup: 'user-approval' } } },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Look up T-9')))
    const pending = await until(
      async () => (await a.session('s').state()).state.pendingApprovals[0],
    )
    expect((await a.session('s').state()).state.active?.phase).toBe('generating')
    await a.session('s').append(...inputs.approval(pending, { approved: true }))
    await until(() => effects.length === 1)
    expect(await typesOf(a, 's')).not.toContain('ai.generation.completed')
    script.release()
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(effects).toEqual(['T-9'])
    expect(state.active).toBeNull()
    expect(textOf(state.messages[1])).toBe('Done.')
  })

  it('Given an attempt superseded mid-stream, When its stream later yields a tool call, Then its late ai.tool.called is fenced out: the call runs once, from the new attempt', async () => {
    const effects: string[] = []
    const store = memoryEventStore()
    // A worker cut off from the store: its renewals never land, so its claim
    // expires while it still streams.
    const partitioned: EventStore = { ...store, renewClaim: () => new Promise(() => {}) }
    const stale = scriptedModel([
      {
        hang: true,
        parts: [{ type: 'stream-start', warnings: [] }],
        afterRelease: [toolCall('c1', 'STALE'), finish],
      },
    ])
    const first = track(
      agent({
        name: 'fenced',
        model: stale.model,
        store: partitioned,
        tools: { lookup: lookupTool(effects) },
        claimTtlMs: 100,
      }),
    )
    await first.session('s').append(...inputs.message(userMessage('m1', 'Status?')))
    await until(async () => (await typesOf(first, 's')).includes('ai.generation.started'))

    const fresh = scriptedModel([
      [{ type: 'stream-start', warnings: [] }, toolCall('c1', 'FRESH'), finish],
      text('FRESH is open.'),
    ])
    const second = track(
      agent({
        name: 'fenced',
        model: fresh.model,
        store,
        tools: { lookup: lookupTool(effects) },
        claimTtlMs: 100,
        retry: { baseDelayMs: 20 },
      }),
    )
    await until(async () => {
      await second.runtime.wakeAll('s')
      return (await typesOf(second, 's')).includes('ai.generation.superseded')
    })
    stale.release()
    await until(async () => (await second.session('s').state()).state.active === null)
    await first.runtime.idle()
    await second.runtime.idle()

    expect(effects).toEqual(['FRESH'])
    const called = (await eventsOf(second, 's')).filter((event) => event.type === 'ai.tool.called')
    expect(called.map((event) => (event.payload as { generationId: string }).generationId)).toEqual(
      ['a2.ai:gen:a2.ai:request:m1:1:2'],
    )
  })
})
