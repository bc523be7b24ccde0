import { describe, expect, it } from 'vitest'
import { inputs, turnAwaits } from '../../../../shared/ai.ts'
import { FakeSession, userMessage } from '../../../support/fake-session.ts'

describe('turnAwaits(): what an active turn waits on', () => {
  it('Given a closed step with a running tool, an approval and a deferred provider call, Then the turn waits on each of them', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    expect(turnAwaits(session.state)).toEqual([
      { kind: 'model-step', requestId: 'a2.ai:request:m1:1' },
    ])
    const generation = session.start()
    session.callTool(generation, 'call_0')
    session.callTool(generation, 'call_1', { approval: 'ap-1' })
    session.callProviderTool(generation, 'call_2', { answered: false, deferred: true })
    session.callProviderTool(generation, 'call_3', { answered: false, deferred: false })
    session.complete(generation)
    expect(session.state.active?.phase).toBe('waiting')
    expect(turnAwaits(session.state)).toEqual([
      { kind: 'tool', toolCallId: 'call_0', generationId: generation },
      { kind: 'deferred-result', toolCallId: 'call_2', generationId: generation },
      { kind: 'approval', approvalId: 'ap-1' },
    ])
  })

  it('Given a failed step, Then the turn waits for the user: retry', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    session.complete(session.start(), 'failed')
    expect(turnAwaits(session.state)).toEqual([{ kind: 'retry' }])
  })

  it('Given no active turn, Then nothing is awaited', () => {
    expect(turnAwaits(new FakeSession().state)).toEqual([])
  })
})
