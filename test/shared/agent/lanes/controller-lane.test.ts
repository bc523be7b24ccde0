import { describe, expect, it } from 'vitest'
import { inputs } from '../../../../shared/ai.ts'
import { FakeSession, laneSpec } from '../../../../shared/testing/index.ts'
import { userMessage } from '../../../support/conversation.ts'

// The controller lane (the lane table's `admission`) as given/when/then
// cases: what it appends for the commands and facts a session's log holds.

const spec = laneSpec()
const admission = { lane: 'admission' } as const

/** A session whose first message was admitted: its step 1 requested. */
function asked(): FakeSession {
  const history = new FakeSession()
  history.push(inputs.message(userMessage('m1', 'Close my ticket')))
  return history
}

describe('the controller lane', () => {
  it('admits a user message: the turn starts and its first step is requested, waking the generation lane', async () => {
    const run = await spec
      .given(inputs.message(userMessage('m1', 'Close my ticket')))
      .when(admission)
      .thenAppends([
        { type: 'ai.message.created', payload: { inputId: 'm1', turnId: 'a2.ai:turn:m1' } },
        {
          type: 'ai.control.committed',
          payload: { commandId: 'm1', changes: [{ op: 'turn.start', turnId: 'a2.ai:turn:m1' }] },
        },
        {
          type: 'ai.control.decided',
          payload: { commandId: 'm1', action: 'message', outcome: 'applied' },
        },
        { type: 'ai.generation.requested', payload: { turnId: 'a2.ai:turn:m1', step: 1 } },
      ])
    expect(run.wakeUps.map((wakeUp) => wakeUp.lane)).toEqual(['generation'])
  })

  it('stops the turn a Stop names while its step generates', async () => {
    const history = asked()
    history.start()
    history.append(
      ...inputs.stop({ id: 'stop-1', turnId: 'a2.ai:turn:m1', frontier: history.index }),
    )
    await spec
      .given(history)
      .when(admission)
      .thenAppends([
        {
          type: 'ai.control.committed',
          payload: {
            commandId: 'stop-1',
            changes: [{ op: 'turn.stop', turnId: 'a2.ai:turn:m1', reason: 'stopped' }],
          },
        },
        {
          type: 'ai.control.decided',
          payload: { commandId: 'stop-1', action: 'stop', outcome: 'applied' },
        },
      ])
  })

  it('requests the next step once the last tool result of a step is in', async () => {
    const history = asked()
    const generationId = history.start()
    history.callTool(generationId, 'call-1')
    history.complete(generationId)
    // The result as the tools lane records it, before any controller run.
    history.append({
      id: 'result-1',
      type: 'ai.tool.result',
      payload: {
        toolCallId: 'call-1',
        generationId,
        messageId: 'a2.ai:response:m1',
        outcome: 'output',
        output: { closed: true },
      },
    })
    const run = await spec
      .given(history)
      .when(admission)
      .thenAppends([
        { type: 'ai.generation.requested', payload: { turnId: 'a2.ai:turn:m1', step: 2 } },
      ])
    expect(run.wakeUps.map((wakeUp) => wakeUp.lane)).toEqual(['generation'])
  })

  it('queues a message sent while a turn runs, requesting no step for it', async () => {
    const history = asked()
    history.start()
    history.append(...inputs.message(userMessage('m2', 'And the other one')))
    const run = await spec
      .given(history)
      .when(admission)
      .thenAppends([
        {
          type: 'ai.control.committed',
          payload: { commandId: 'm2', changes: [{ op: 'inbox.add', inputId: 'm2' }] },
        },
        {
          type: 'ai.control.decided',
          payload: { commandId: 'm2', action: 'message', outcome: 'applied' },
        },
      ])
    expect(run.wakeUps).toEqual([])
  })

  it('rejects a Stop of a turn that is over', async () => {
    const history = asked()
    history.respond('Closed.')
    history.append(
      ...inputs.stop({ id: 'stop-1', turnId: 'a2.ai:turn:m1', frontier: history.index }),
    )
    await spec
      .given(history)
      .when(admission)
      .thenAppends([
        {
          type: 'ai.control.decided',
          payload: {
            commandId: 'stop-1',
            action: 'stop',
            outcome: 'rejected',
            reason: 'stale-turn',
          },
        },
      ])
  })

  it('pauses now: a call no worker holds is recorded interrupted, and the turn pauses', async () => {
    const history = asked()
    const generationId = history.start()
    history.callTool(generationId, 'call-1')
    history.complete(generationId)
    history.append(...inputs.pause({ when: 'now', id: 'pause-1' }))
    const run = await spec
      .given(history)
      .when(admission)
      .thenAppends([
        {
          type: 'ai.control.committed',
          payload: { commandId: 'pause-1', changes: [{ op: 'pause', when: 'now' }] },
        },
        {
          type: 'ai.control.decided',
          payload: { commandId: 'pause-1', action: 'pause', outcome: 'applied' },
        },
        {
          type: 'ai.tool.interrupted',
          payload: { toolCallId: 'call-1', generationId, reason: 'pause-1' },
        },
        {
          type: 'ai.control.committed',
          payload: { changes: [{ op: 'turn.paused', turnId: 'a2.ai:turn:m1' }] },
        },
      ])
    // No claim was live, so no settle timer waits for one to run out.
    expect(run.timers).toEqual([])
  })

  it('appends nothing for a session with nothing to decide', async () => {
    const history = asked()
    history.respond('Closed.')
    await spec.given(history).when(admission).thenNothing()
  })
})
