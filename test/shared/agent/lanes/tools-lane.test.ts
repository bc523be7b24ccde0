import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { inputs } from '../../../../shared/ai.ts'
import { toolCallKey } from '../../../../shared/model/ids/ids.ts'
import { FakeSession, laneSpec } from '../../../../shared/testing/index.ts'
import { userMessage } from '../../../support/conversation.ts'

// The tools lane as given/when/then cases: a step that called `closeTicket`,
// and what the lane appends when woken for the call (keyed) or the session.

/** `closeTicket`, counting its executions. */
function closeTicketTool(
  execute: (ticketId: string) => Promise<unknown> = async (id) => ({ closed: id }),
) {
  const calls: string[] = []
  const closeTicket = tool({
    description: 'Close a ticket',
    inputSchema: z.object({ ticketId: z.string() }),
    execute: async ({ ticketId }) => {
      calls.push(ticketId)
      return execute(ticketId)
    },
  })
  return { closeTicket, calls }
}

/** A step that called `closeTicket` (with an approval request under `approval`) and ended. */
function called(options: { approval?: string } = {}): { history: FakeSession; key: string } {
  const history = new FakeSession()
  history.push(inputs.message(userMessage('m1', 'Close T-1')))
  const generationId = history.start()
  history.callTool(generationId, 'call-1', options)
  history.complete(generationId)
  return { history, key: toolCallKey({ generationId, toolCallId: 'call-1' }) }
}

describe('the tools lane', () => {
  it('runs a called tool once and appends its result, then the next step', async () => {
    const { closeTicket, calls } = closeTicketTool()
    const { history, key } = called()
    const run = await laneSpec({ agent: { tools: { closeTicket } } })
      .given(history)
      .when({ lane: 'tools', key })
      .thenAppends([
        {
          type: 'ai.tool.result',
          payload: { toolCallId: 'call-1', outcome: 'output', output: { closed: 'T-1' } },
        },
        { type: 'ai.generation.requested', payload: { turnId: 'a2.ai:turn:m1', step: 2 } },
      ])
    expect(calls).toEqual(['T-1'])
    expect(run.wakeUps.map((wakeUp) => wakeUp.lane)).toEqual(['generation'])
  })

  it('woken for the session, wakes one keyed run per runnable call and appends nothing itself', async () => {
    const { closeTicket, calls } = closeTicketTool()
    const { history, key } = called()
    const run = await laneSpec({ agent: { tools: { closeTicket } } })
      .given(history)
      .when({ lane: 'tools' })
      .thenNothing()
    expect(run.wakeUps).toEqual([expect.objectContaining({ lane: 'tools', key })])
    expect(calls).toEqual([])
  })

  it('leaves a call that waits for its approval alone', async () => {
    const { closeTicket, calls } = closeTicketTool()
    const { history, key } = called({ approval: 'approval-1' })
    const run = await laneSpec({ agent: { tools: { closeTicket } } })
      .given(history)
      .when({ lane: 'tools', key })
      .thenNothing()
    expect(calls).toEqual([])
    expect(run.wakeUps).toEqual([])
  })

  it('runs an approved call', async () => {
    const { closeTicket, calls } = closeTicketTool()
    const { history, key } = called({ approval: 'approval-1' })
    const [approval] = history.state.pendingApprovals
    if (approval === undefined) throw new Error('no approval pending')
    history.push(inputs.approval(approval, { approved: true }))
    await laneSpec({ agent: { tools: { closeTicket } } })
      .given(history)
      .when({ lane: 'tools', key })
      .thenAppends([
        { type: 'ai.tool.result', payload: { toolCallId: 'call-1', outcome: 'output' } },
        { type: 'ai.generation.requested', payload: { step: 2 } },
      ])
    expect(calls).toEqual(['T-1'])
  })

  it("records a tool's error as its result", async () => {
    const { closeTicket } = closeTicketTool(async () => {
      throw new Error('ticket locked')
    })
    const { history, key } = called()
    await laneSpec({ agent: { tools: { closeTicket } } })
      .given(history)
      .when({ lane: 'tools', key })
      .thenAppends([
        {
          type: 'ai.tool.result',
          payload: { toolCallId: 'call-1', outcome: 'error', errorText: 'ticket locked' },
        },
        { type: 'ai.generation.requested', payload: { step: 2 } },
      ])
  })

  it('answers a call of a tool the agent does not have with an error, running nothing', async () => {
    const { history, key } = called()
    await laneSpec()
      .given(history)
      .when({ lane: 'tools', key })
      .thenAppends([
        {
          type: 'ai.tool.result',
          payload: {
            toolCallId: 'call-1',
            outcome: 'error',
            errorText: 'Unknown tool "closeTicket"',
          },
        },
        { type: 'ai.generation.requested', payload: { step: 2 } },
      ])
  })

  it('runs an answered call no more', async () => {
    const { closeTicket, calls } = closeTicketTool()
    const { history, key } = called()
    const generationId = history.state.tools[0]?.generationId ?? ''
    history.toolResult(generationId, 'call-1')
    await laneSpec({ agent: { tools: { closeTicket } } })
      .given(history)
      .when({ lane: 'tools', key })
      .thenNothing()
    expect(calls).toEqual([])
  })
})
