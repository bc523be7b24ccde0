import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agent } from '../../../../shared/agent/index.ts'
import { inputs } from '../../../../shared/ai.ts'
import {
  FakeSession,
  laneSpec,
  type Step,
  scriptedModel,
  text,
  toolCalls,
} from '../../../../shared/testing/index.ts'
import { eventsOf, textOf, track, userMessage } from '../../../support/agent-log.ts'

const fast = { maxAttempts: 5, baseDelayMs: 1, maxDelayMs: 2 }

describe('the generation lane: a step that fails after recording a tool call', () => {
  it('ends on its call: the email is sent once and the turn goes on, where failing the turn had Retry ask the model for a second email (simulator seed 151)', async () => {
    let sent = 0
    const email = tool({
      description: 'Email the customer',
      inputSchema: z.object({ to: z.string() }),
      execute: async ({ to }) => {
        sent++
        return { sentTo: to }
      },
    })
    const warnings: string[] = []
    const logger = { info() {}, warn: (line: string) => void warnings.push(line), error() {} }
    const scripted = scriptedModel([
      [
        ...toolCalls({ toolCallId: 'call_0', toolName: 'email', input: { to: 'ann' } }).slice(
          0,
          -1,
        ),
        { type: 'error', error: new Error('The stream ended early: connection reset by peer') },
      ],
      text('Sent.'),
    ])
    const a = track(
      agent({ name: 'mail', model: scripted.model, tools: { email }, logger, retry: fast }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'email ann')))
    await a.runtime.idle()

    const { state } = await a.session('s').state()
    expect(state.active).toBeNull()
    expect(textOf(state.messages.at(-1))).toBe('Sent.')
    expect(sent).toBe(1)
    expect(scripted.calls).toHaveLength(2)
    const completed = (await eventsOf(a, 's')).filter(
      (event) => event.type === 'ai.generation.completed',
    )
    expect(completed[0]?.payload).toMatchObject({
      outcome: 'success',
      finishReason: 'tool-calls',
      error: expect.stringContaining('connection reset by peer'),
    })
    expect(warnings.join('\n')).toMatch(/failed after recording tool calls .*connection reset/)
  })

  it('with no call recorded, fails the turn with the reason, for Retry to ask again', async () => {
    const scripted = scriptedModel([
      [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 't1' },
        { type: 'text-delta', id: 't1', delta: 'Hal' },
        { type: 'error', error: new Error('connection reset by peer') },
      ],
    ])
    const quiet = { info() {}, warn() {}, error() {} }
    const a = track(agent({ name: 'mail', model: scripted.model, logger: quiet, retry: fast }))
    await a.session('s').append(...inputs.message(userMessage('m1', 'hello')))
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(state.active?.phase).toBe('failed')
    expect(state.active?.error).toContain('connection reset by peer')
  })
})

// The generation lane as given/when/then cases, through its run only (its
// internals are another file's business): a session whose step 1 is
// requested, a scripted model, and the step's events the lane appends.

const closeTicket = tool({
  description: 'Close a ticket',
  inputSchema: z.object({ ticketId: z.string() }),
  execute: async ({ ticketId }) => ({ closed: ticketId }),
})

/**
 * The agent on a script. Progress windows longer than any case, so a
 * step's progress is written as the batcher's first write (at the first
 * content chunk) and its last (at the end), however loaded the machine.
 */
function specOn(
  steps: Step[],
  generation: { toolApproval?: { closeTicket: 'user-approval' } } = {},
) {
  return laneSpec({
    script: steps,
    agent: {
      tools: { closeTicket },
      harness: {
        type: 'ai-sdk',
        generation: { ...generation, progress: { windowMs: 60_000, maxWindowMs: 60_000 } },
      },
    },
  })
}

/** A session whose first message was admitted: its step 1 requested. */
function asked(): FakeSession {
  const history = new FakeSession()
  history.push(inputs.message(userMessage('m1', 'Close T-1')))
  return history
}

const generation = { lane: 'generation' } as const
const generationId = 'a2.ai:gen:a2.ai:request:m1:1:1'

describe('the generation lane', () => {
  it("writes a text step's start, progress and finish from the model's stream, ending the turn", async () => {
    await specOn([text('Closed.')])
      .given(asked())
      .when(generation)
      .thenAppends([
        {
          type: 'ai.generation.started',
          payload: { generationId, turnId: 'a2.ai:turn:m1', step: 1, attempt: 1 },
        },
        {
          type: 'ai.generation.progress',
          payload: {
            generationId,
            chunks: [
              { type: 'start', messageId: 'a2.ai:response:m1' },
              { type: 'start-step' },
              { type: 'text-start' },
              { type: 'text-delta', delta: 'Closed.' },
            ],
          },
        },
        {
          type: 'ai.generation.progress',
          payload: {
            chunks: [{ type: 'text-end' }, { type: 'finish-step' }, { type: 'finish' }],
          },
        },
        {
          type: 'ai.generation.completed',
          payload: { generationId, outcome: 'success', finishReason: 'stop' },
        },
        { type: 'ai.message.completed', payload: { turnId: 'a2.ai:turn:m1', reason: 'finished' } },
      ])
  })

  it('records a tool call as soon as its input is complete, and wakes the tools lane for it', async () => {
    const run = await specOn([
      toolCalls({ toolCallId: 'call-1', toolName: 'closeTicket', input: { ticketId: 'T-1' } }),
    ])
      .given(asked())
      .when(generation)
      .thenAppends([
        { type: 'ai.generation.started', payload: { step: 1 } },
        { type: 'ai.generation.progress' },
        {
          type: 'ai.tool.called',
          payload: { toolCallId: 'call-1', toolName: 'closeTicket', generationId },
        },
        { type: 'ai.generation.progress' },
        {
          type: 'ai.generation.completed',
          payload: { outcome: 'success', finishReason: 'tool-calls' },
        },
      ])
    expect(run.wakeUps).toEqual([expect.objectContaining({ lane: 'tools' })])
  })

  it('asks for approval of a call its policy says the user approves', async () => {
    await specOn(
      [toolCalls({ toolCallId: 'call-1', toolName: 'closeTicket', input: { ticketId: 'T-1' } })],
      { toolApproval: { closeTicket: 'user-approval' } },
    )
      .given(asked())
      .when(generation)
      .thenAppends([
        { type: 'ai.generation.started' },
        { type: 'ai.generation.progress' },
        { type: 'ai.tool.called', payload: { toolCallId: 'call-1' } },
        {
          type: 'ai.approval.requested',
          payload: { toolCallId: 'call-1', toolName: 'closeTicket', input: { ticketId: 'T-1' } },
        },
        { type: 'ai.generation.progress' },
        { type: 'ai.generation.completed', payload: { finishReason: 'tool-calls' } },
      ])
  })

  it("fails the step with the model's error", async () => {
    await specOn([{ error: 'provider down' }])
      .given(asked())
      .when(generation)
      .thenAppends([
        { type: 'ai.generation.started', payload: { step: 1 } },
        {
          type: 'ai.generation.progress',
          payload: { chunks: [{ type: 'start' }, { type: 'error', errorText: 'provider down' }] },
        },
        { type: 'ai.generation.completed', payload: { outcome: 'failed', error: 'provider down' } },
      ])
  })

  it('appends nothing when no step is due', async () => {
    const history = asked()
    history.respond('Closed.')
    await specOn([]).given(history).when(generation).thenNothing()
  })
})
