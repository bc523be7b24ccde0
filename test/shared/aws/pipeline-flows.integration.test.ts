import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { handlerContext, inputs, isCompactionPart } from '../../../shared/ai.ts'
import {
  type Step,
  scriptedModel,
  text,
  toolCalls,
} from '../../../shared/testing/scripted-model.ts'
import { textOf, until, userMessage } from '../../support/agent-log.ts'
import { pipelineForSuite } from '../../support/pipeline.ts'

const closed: string[] = []
const summaries = ['SUMMARY-OF-THE-PIPELINE']
const answers: Step[] = [
  toolCalls({ toolCallId: 'c1', toolName: 'closeTicket', input: { ticketId: 'T-7' } }),
  text('Closed T-7.'),
  toolCalls({ toolCallId: 'c2', toolName: 'setReminder', input: { seconds: 1, text: 'stretch' } }),
  text('I will remind you.'),
  text('Time to stretch!'),
  text(`A long answer: ${'many words that fill the context '.repeat(12)}`),
  text('Short answer after the summary.'),
]
const script = scriptedModel((options) =>
  options.toolChoice?.type === 'none' ? text(summaries.shift() ?? 'SUMMARY') : answers.shift(),
)
const suite = pipelineForSuite(
  {
    name: 'support-agent',
    model: script.model,
    tools: {
      closeTicket: tool({
        inputSchema: z.object({ ticketId: z.string() }),
        execute: async ({ ticketId }) => {
          closed.push(ticketId)
          return { closed: true }
        },
      }),
      setReminder: tool({
        inputSchema: z.object({ seconds: z.number(), text: z.string() }),
        execute: async ({ seconds, text: reminder }, { toolCallId }) => {
          const ctx = handlerContext()
          await ctx.session.schedule(
            `reminder:${toolCallId}`,
            { delay: seconds * 1000 },
            ...inputs.message({
              id: `reminder-${toolCallId}`,
              role: 'user',
              parts: [{ type: 'text', text: `Reminder: ${reminder}` }],
            }),
          )
          return { scheduled: true }
        },
      }),
    },
    harness: {
      type: 'ai-sdk',
      generation: { toolApproval: { closeTicket: 'user-approval' } },
      // Only the turn after the long answer crosses it.
      compaction: { thresholdTokens: 400 },
    },
  },
  { maxReceiveCount: 3 },
)

const post = (sessionId: string, events: unknown[]) =>
  fetch(`${suite().pipeline.url}?sessionId=${sessionId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ events }),
  })

const settled = (
  sessionId: string,
  check: (state: Awaited<ReturnType<typeof stateOf>>) => boolean,
) =>
  until(async () => {
    const state = await stateOf(sessionId)
    return check(state) && state
  }, 20_000)

async function stateOf(sessionId: string) {
  return (await suite().agent.session(sessionId).state()).state
}

describe('flows through the pipeline on the emulator', () => {
  it('a tool that needs approval waits for it, then runs once; a reminder timer fires; a long session compacts', async () => {
    expect((await post('flows', inputs.message(userMessage('f1', 'close T-7')))).status).toBe(200)
    const waiting = await settled('flows', (state) => state.pendingApprovals.length === 1)
    const approval = waiting.pendingApprovals[0]
    if (!approval) throw new Error('no approval')
    expect(closed).toEqual([])
    expect((await post('flows', inputs.approval(approval, { approved: true }))).status).toBe(200)
    let state = await settled(
      'flows',
      (current) => current.active === null && current.messages.length === 2,
    )
    expect(closed).toEqual(['T-7'])
    expect(textOf(state.messages[1])).toBe('Closed T-7.')

    await post('flows', inputs.message(userMessage('f2', 'remind me in a second to stretch')))
    state = await settled(
      'flows',
      (current) => current.messages.length === 6 && current.active === null,
    )
    expect(textOf(state.messages[4])).toBe('Reminder: stretch')
    expect(textOf(state.messages[5])).toBe('Time to stretch!')

    await post('flows', inputs.message(userMessage('f3', 'tell me a lot')))
    await settled('flows', (current) => current.messages.length === 8 && current.active === null)
    await post('flows', inputs.message(userMessage('f4', 'and now briefly')))
    state = await settled(
      'flows',
      (current) => current.messages.length === 10 && current.active === null,
    )
    expect(textOf(state.messages[9])).toBe('Short answer after the summary.')
    expect(state.compacted?.summary).toBe('SUMMARY-OF-THE-PIPELINE')
    expect(
      state.messages
        .flatMap((m) => m.parts.filter(isCompactionPart))
        .map((part) => part.data.status),
    ).toEqual(['completed'])
    expect(JSON.stringify(script.calls.at(-1)?.prompt)).toContain('SUMMARY-OF-THE-PIPELINE')
    expect(JSON.stringify(script.calls.at(-1)?.prompt)).not.toContain('close T-7')
  }, 60_000)
})
