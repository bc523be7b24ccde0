import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agent } from '../../../../shared/agent/index.ts'
import { inputs } from '../../../../shared/ai.ts'
import { scriptedModel, text, toolCalls } from '../../../../shared/testing/scripted-model.ts'
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
