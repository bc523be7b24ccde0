import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agent } from '../../../shared/agent/index.ts'
import { inputs } from '../../../shared/ai.ts'
import { scriptedModel, text, toolCalls } from '../../../shared/testing/scripted-model.ts'
import {
  eventsOf,
  stepOrder,
  textOf,
  track,
  typesOf,
  userMessage,
} from '../../support/agent-log.ts'

function ticketTools(log: string[] = []) {
  return {
    closeTicket: tool({
      description: 'Close a resolved support ticket',
      inputSchema: z.object({ ticketId: z.string() }),
      execute: async ({ ticketId }) => {
        log.push(`close:${ticketId}`)
        return { ticketId, closed: true }
      },
    }),
    lookup: tool({
      description: 'Look a ticket up',
      inputSchema: z.object({ ticketId: z.string() }),
      execute: async ({ ticketId }) => {
        log.push(`lookup:${ticketId}`)
        return { ticketId, status: 'open' }
      },
    }),
  }
}

describe('tools (embedded)', () => {
  it('runs a tool call and feeds its result into the next model step', async () => {
    const effects: string[] = []
    const script = scriptedModel([
      toolCalls({ toolCallId: 'c1', toolName: 'lookup', input: { ticketId: 'T-1' } }),
      text('T-1 is open.'),
    ])
    const a = track(
      agent({ name: 'tools-agent', model: script.model, tools: ticketTools(effects) }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Status of T-1?')))
    await a.runtime.idle()
    expect(effects).toEqual(['lookup:T-1'])
    expect(stepOrder(await typesOf(a, 's'))).toEqual([
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
    ])
    // The second step saw the tool's output.
    const secondPrompt = JSON.stringify(script.calls[1]?.prompt)
    expect(secondPrompt).toContain('"status":"open"')
    const { state } = await a.session('s').state()
    const response = state.messages[1]
    expect(response?.parts.find((part) => part.type === 'tool-lookup')).toMatchObject({
      state: 'output-available',
      output: { ticketId: 'T-1', status: 'open' },
    })
    expect(textOf(response)).toBe('T-1 is open.')
  })

  it('asks for approval instead of running a tool that needs it, then runs it once approved', async () => {
    const effects: string[] = []
    const script = scriptedModel([
      toolCalls({ toolCallId: 'c1', toolName: 'closeTicket', input: { ticketId: 'T-9' } }),
      text('Closed.'),
    ])
    const a = track(
      agent({
        name: 'approvals',
        model: script.model,
        tools: ticketTools(effects),
        harness: { type: 'ai-sdk', generation: { toolApproval: { closeTicket: 'user-approval' } } },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Close T-9')))
    await a.runtime.idle()
    let { state } = await a.session('s').state()
    expect(effects).toEqual([])
    expect(state.pendingApprovals).toHaveLength(1)
    const pending = state.pendingApprovals[0]
    if (!pending) throw new Error('no pending approval')
    expect(pending).toMatchObject({ toolCallId: 'c1', toolName: 'closeTicket' })

    await a.session('s').append(...inputs.approval(pending, { approved: true }))
    await a.runtime.idle()
    ;({ state } = await a.session('s').state())
    expect(effects).toEqual(['close:T-9'])
    expect(state.pendingApprovals).toEqual([])
    expect(textOf(state.messages[1])).toBe('Closed.')
    expect(state.active).toBeNull()
  })

  it('records a denial as the tool result and never runs the tool', async () => {
    const effects: string[] = []
    const script = scriptedModel([
      toolCalls({ toolCallId: 'c1', toolName: 'closeTicket', input: { ticketId: 'T-9' } }),
      text('Understood, I will not close it.'),
    ])
    const a = track(
      agent({
        name: 'denials',
        model: script.model,
        tools: ticketTools(effects),
        harness: { type: 'ai-sdk', generation: { toolApproval: { closeTicket: 'user-approval' } } },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Close T-9')))
    await a.runtime.idle()
    const pending = (await a.session('s').state()).state.pendingApprovals[0]
    if (!pending) throw new Error('no pending approval')
    await a
      .session('s')
      .append(...inputs.approval(pending, { approved: false, reason: 'Denied by the user' }))
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(effects).toEqual([])
    expect(state.messages[1]?.parts.find((part) => part.type === 'tool-closeTicket')).toMatchObject(
      {
        state: 'output-denied',
      },
    )
    expect(textOf(state.messages[1])).toBe('Understood, I will not close it.')
    const results = (await eventsOf(a, 's')).filter((event) => event.type === 'ai.tool.result')
    expect(results.map((event) => (event.payload as { outcome: string }).outcome)).toEqual([
      'denied',
    ])
  })

  it('lets a policy function decide approval from the validated input', async () => {
    const effects: string[] = []
    const script = scriptedModel([
      toolCalls(
        { toolCallId: 'c1', toolName: 'closeTicket', input: { ticketId: 'SAFE-1' } },
        { toolCallId: 'c2', toolName: 'closeTicket', input: { ticketId: 'VIP-1' } },
      ),
      text('done'),
    ])
    const a = track(
      agent({
        name: 'policy',
        model: script.model,
        tools: ticketTools(effects),
        harness: {
          type: 'ai-sdk',
          generation: {
            toolApproval: {
              closeTicket: (input) =>
                (input as { ticketId: string }).ticketId.startsWith('VIP')
                  ? 'user-approval'
                  : 'approved',
            },
          },
        },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Close both')))
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(effects).toEqual(['close:SAFE-1'])
    expect(state.pendingApprovals.map((approval) => approval.toolCallId)).toEqual(['c2'])
  })

  it('turns an execution error and invalid input into error results the model sees', async () => {
    const script = scriptedModel([
      toolCalls(
        { toolCallId: 'c1', toolName: 'explode', input: {} },
        { toolCallId: 'c2', toolName: 'lookup', input: { ticketId: 42 } },
      ),
      text('Sorry, that failed.'),
    ])
    const a = track(
      agent({
        name: 'errors',
        model: script.model,
        tools: {
          ...ticketTools(),
          explode: tool({
            inputSchema: z.object({}),
            execute: async (): Promise<string> => {
              throw new Error('database on fire')
            },
          }),
        },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'go')))
    await a.runtime.idle()
    const results = (await eventsOf(a, 's')).filter((event) => event.type === 'ai.tool.result')
    expect(results.map((event) => event.payload)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          toolCallId: 'c1',
          outcome: 'error',
          errorText: 'database on fire',
        }),
        expect.objectContaining({ toolCallId: 'c2', outcome: 'error' }),
      ]),
    )
    expect(JSON.stringify(script.calls[1]?.prompt)).toContain('database on fire')
    const { state } = await a.session('s').state()
    expect(textOf(state.messages[1])).toBe('Sorry, that failed.')
  })

  it('logs a tool that throws on the server, with the error, besides handing it to the model', async () => {
    const script = scriptedModel([
      toolCalls({ toolCallId: 'c1', toolName: 'explode', input: {} }),
      text('Sorry, that failed.'),
    ])
    const failure = new Error('database on fire')
    const warnings: unknown[][] = []
    const a = track(
      agent({
        name: 'errors',
        model: script.model,
        tools: {
          explode: tool({
            inputSchema: z.object({}),
            execute: async (): Promise<string> => {
              throw failure
            },
          }),
        },
        logger: { info() {}, error() {}, warn: (...args: unknown[]) => warnings.push(args) },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'go')))
    await a.runtime.idle()
    expect(warnings).toEqual([
      [
        'a2: tool explode (call c1) of session s threw, and the model gets its error: database on fire',
        failure,
      ],
    ])
  })

  it('records preliminary outputs as the AI SDK yields them, then the final one', async () => {
    const script = scriptedModel([
      toolCalls({ toolCallId: 'c1', toolName: 'progress', input: {} }),
      text('ok'),
    ])
    const a = track(
      agent({
        name: 'preliminary',
        model: script.model,
        tools: {
          progress: tool({
            inputSchema: z.object({}),
            async *execute() {
              yield { percent: 50 }
              yield { percent: 100 }
            },
          }),
        },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'go')))
    await a.runtime.idle()
    const results = (await eventsOf(a, 's')).filter((event) => event.type === 'ai.tool.result')
    // The SDK's executeTool yields each value as preliminary, then the last as final.
    expect(results.map((event) => event.payload)).toEqual([
      expect.objectContaining({ outcome: 'output', output: { percent: 50 }, preliminary: true }),
      expect.objectContaining({ outcome: 'output', output: { percent: 100 }, preliminary: true }),
      expect.objectContaining({ outcome: 'output', output: { percent: 100 } }),
    ])
    expect(results[2]?.payload).not.toHaveProperty('preliminary')
    const { state } = await a.session('s').state()
    const part = state.messages[1]?.parts.find((p) => p.type === 'tool-progress') as {
      state: string
      output: unknown
      preliminary?: boolean
    }
    expect(part).toMatchObject({ state: 'output-available', output: { percent: 100 } })
    expect(part.preliminary).not.toBe(true)
  })

  it('runs independent tools concurrently, and one at a time with toolLane: tools', async () => {
    for (const toolLane of [undefined, 'tools'] as const) {
      let running = 0
      let maxRunning = 0
      const slow = tool({
        inputSchema: z.object({ n: z.number() }),
        execute: async ({ n }) => {
          running++
          maxRunning = Math.max(maxRunning, running)
          await new Promise((resolve) => setTimeout(resolve, 30))
          running--
          return n
        },
      })
      const script = scriptedModel([
        toolCalls(
          { toolCallId: 'c1', toolName: 'slow', input: { n: 1 } },
          { toolCallId: 'c2', toolName: 'slow', input: { n: 2 } },
          { toolCallId: 'c3', toolName: 'slow', input: { n: 3 } },
        ),
        text('done'),
      ])
      const a = track(
        agent({
          name: 'lanes',
          model: script.model,
          tools: { slow },
          ...(toolLane ? { toolLane } : {}),
        }),
      )
      await a.session('s').append(...inputs.message(userMessage('m1', 'go')))
      await a.runtime.idle()
      expect((await a.session('s').state()).state.active).toBeNull()
      expect(maxRunning).toBe(toolLane ? 1 : 3)
      // The next step waited for every sibling result.
      const prompt = JSON.stringify(script.calls[1]?.prompt)
      for (const n of ['c1', 'c2', 'c3']) expect(prompt).toContain(n)
    }
  })
})
