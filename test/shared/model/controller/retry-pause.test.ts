import { describe, expect, it } from 'vitest'
import { inputs, type ToolRecord } from '../../../../shared/ai.ts'
import { decide } from '../../../../shared/model/controller/decide.ts'
import { toolInterrupted } from '../../../../shared/model/controller/settle-work.ts'
import { FakeSession, userMessage } from '../../../support/fake-session.ts'

function failedTurn(): { session: FakeSession; turnId: string } {
  const session = new FakeSession()
  session.push(inputs.message(userMessage('m1')))
  const turnId = session.state.active?.turnId as string
  const first = session.start()
  session.callTool(first, 'call-1')
  session.toolResult(first, 'call-1')
  session.complete(first)
  const second = session.start()
  session.text(second, 'half an answer')
  session.complete(second, 'failed')
  return { session, turnId }
}

describe('Retry', () => {
  it('Given a failed model call, When retry() is clicked twice, Then each click gets "a fresh retryId": resending one is safe and a later retry stays distinct', () => {
    const { session, turnId } = failedTurn()
    expect(session.state.active).toMatchObject({ phase: 'failed', error: 'provider down' })
    const click = inputs.retry({ turnId, retryId: 'retry-1' })
    expect(session.push(click).outcome).toBe('applied')
    const requests = session.eventsOf('ai.generation.requested').length
    // Resent: the log replays the same ID; deciding it again changes nothing.
    expect(session.append(...click)).toEqual([])
    expect(session.eventsOf('ai.generation.requested')).toHaveLength(requests)
    const stored = session.log.find((event) => event.id === 'retry-1')
    const again = decide(session.state, stored as never)
    expect(again.events.map((event) => event.type)).toEqual(['ai.control.decided'])
    // A distinct retry while the first one runs is not a second model call.
    expect(session.push(inputs.retry({ turnId, retryId: 'retry-2' }))).toMatchObject({
      reason: 'not-failed',
    })
    const retried = session.start()
    session.complete(retried, 'failed')
    expect(session.push(inputs.retry({ turnId, retryId: 'retry-3' })).outcome).toBe('applied')
    expect(session.eventsOf('ai.generation.requested').at(-1)?.payload).toMatchObject({
      retryId: 'retry-3',
      step: 2,
    })
  })

  it('Given a failed step after a completed one, When it is retried, Then earlier steps and tool results remain and "the failed call\'s uncommitted step leaves the prompt and response"', () => {
    const { session, turnId } = failedTurn()
    session.push(inputs.retry({ turnId, retryId: 'retry-1' }))
    const generation = session.start()
    session.text(generation, 'a full answer')
    session.complete(generation)
    const parts = session.state.messages.at(-1)?.parts ?? []
    expect(parts).toContainEqual(
      expect.objectContaining({ toolCallId: 'call-1', state: 'output-available' }),
    )
    expect(parts).toContainEqual(expect.objectContaining({ type: 'text', text: 'a full answer' }))
    expect(JSON.stringify(parts)).not.toContain('half an answer')
  })

  it("Given a step that asked for an approval mid-stream and then failed, When it is retried, Then the failed step's approval closes with its uncommitted step, and the retried step's join does not wait for it", () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const turnId = session.state.active?.turnId as string
    const failed = session.start()
    session.callTool(failed, 'call_0', { approval: 'ap-1' })
    session.complete(failed, 'failed')
    expect(session.state.pendingApprovals).toHaveLength(1)
    session.push(inputs.retry({ turnId, retryId: 'retry-1' }))
    expect(session.state.pendingApprovals).toEqual([])
    expect(session.state.tools).toEqual([])
    session.respond('answered without the tool')
    expect(session.eventsOf('ai.message.completed').at(-1)?.payload).toMatchObject({
      turnId,
      reason: 'finished',
    })
  })

  it('Given an attempt that asked for an approval and was superseded, Then its approval closes: the replacement attempt asks again if its model calls again', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const superseded = session.start()
    session.callTool(superseded, 'call_0', { approval: 'ap-1' })
    const requestId = session.state.activeGeneration?.requestId as string
    session.fact({
      id: `superseded:${superseded}`,
      type: 'ai.generation.superseded',
      payload: { generationId: superseded, requestId },
    })
    expect(session.state.pendingApprovals).toEqual([])
    expect(session.state.tools).toEqual([])
  })

  it('Given a failed response, Then "later user messages stay queued until the failed response is retried or interrupted"', () => {
    const { session, turnId } = failedTurn()
    session.push(inputs.message(userMessage('m2')))
    expect(session.inboxIds()).toEqual(['m2'])
    expect(session.state.active?.turnId).toBe(turnId)
    const generation = session.state.activeGeneration
    if (!generation) throw new Error('no generation')
    session.push(
      inputs.interrupt({
        generationId: generation.generationId,
        responseMessageId: generation.responseMessageId,
      }),
    )
    expect(session.state.active?.inputId).toBe('m2')
  })
})

describe('Pause and resume', () => {
  it('Given an active turn, When pause({ when: "after-turn" }) is sent, Then the turn finishes and admission stays closed until resume()', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    session.push(inputs.message(userMessage('m2')))
    session.push(inputs.pause({ when: 'after-turn' }))
    expect(session.state.active?.phase).toBe('starting')
    session.respond('done')
    expect(session.state.active).toBeNull()
    expect(session.state.inbox).toEqual({
      items: [expect.objectContaining({ id: 'm2' })],
      paused: true,
    })
    session.push(inputs.message(userMessage('m3')))
    expect(session.inboxIds()).toEqual(['m2', 'm3'])
    session.push(inputs.resume())
    expect(session.state.active?.inputId).toBe('m2')
  })

  it('Given a running step and tool, When pause({ when: "now" }) is sent, Then phase is pausing while old work settles, then paused; resume() resumes retained work before admitting another input', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    session.push(inputs.message(userMessage('m2')))
    const generation = session.start()
    session.callTool(generation, 'call-1')
    session.push(inputs.pause({ when: 'now' }))
    // The controller ends the model step at once (its worker is fenced out by
    // the revoked claim); the tool is stopped and settles only once no worker
    // can be running it.
    expect(session.eventsOf('ai.generation.completed').map((event) => event.payload)).toEqual([
      expect.objectContaining({ generationId: generation, outcome: 'interrupted' }),
    ])
    expect(session.state.active?.phase).toBe('pausing')
    // Its worker acknowledges once `execute` has returned (controller/pause-settlement.ts).
    const tool = session.state.tools.find((candidate) => candidate.toolCallId === 'call-1')
    session.fact(toolInterrupted(tool as ToolRecord, session.state.active?.pausedBy as string))
    expect(session.state.active?.phase).toBe('paused')
    expect(session.state.tools).toEqual([
      expect.objectContaining({ toolCallId: 'call-1', status: 'interrupted' }),
    ])
    session.push(inputs.resume())
    // The interrupted tool runs again; the interrupted step runs again once it
    // has a result; m2 waits for the turn.
    expect(session.state.tools).toEqual([
      expect.objectContaining({ toolCallId: 'call-1', status: 'running' }),
    ])
    expect(session.state.active?.inputId).toBe('m1')
    session.toolResult(generation, 'call-1')
    expect(session.eventsOf('ai.generation.requested').at(-1)?.payload).toMatchObject({ step: 1 })
    session.respond('finished')
    expect(session.state.active?.inputId).toBe('m2')
  })

  it('Given a turn paused with Pause now, Then "a turn paused with Pause now keeps its steering until Resume" and on Resume the steering enters as one turn while the paused turn\'s own work does not resume', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const turnId = session.state.active?.turnId as string
    const generation = session.start()
    session.push(inputs.pause({ when: 'now' }))
    session.complete(generation, 'interrupted')
    expect(session.state.active?.phase).toBe('paused')
    session.push(inputs.steer(userMessage('s1'), { afterStepOf: turnId }))
    session.push(inputs.message(userMessage('q1')))
    session.push(inputs.queue.sendNow('q1', { afterStepOf: turnId }))
    expect(session.state.active).toMatchObject({ turnId, phase: 'paused' })
    expect(session.inboxIds()).toEqual(['s1', 'q1'])
    const requests = session.eventsOf('ai.generation.requested').length
    session.push(inputs.resume())
    expect(session.state.active).toMatchObject({ inputId: 'q1', contextInputIds: ['s1'] })
    const newRequests = session.eventsOf('ai.generation.requested').slice(requests)
    expect(newRequests.map((event) => (event.payload as { turnId: string }).turnId)).toEqual([
      session.state.active?.turnId,
    ])
  })

  it('Given admission paused with no active turn, When Send now selects a queued input, Then "a paused queue keeps the selected input first until Resume"', () => {
    const session = new FakeSession()
    session.push(inputs.pause({ when: 'after-turn' }))
    session.push(inputs.message(userMessage('a')))
    session.push(inputs.message(userMessage('b')))
    session.push(inputs.queue.sendNow('b', { afterStepOf: null }))
    expect(session.inboxIds()).toEqual(['b', 'a'])
    expect(session.state.active).toBeNull()
    session.push(inputs.resume())
    expect(session.state.active?.inputId).toBe('b')
  })
})

describe('Passive messages', () => {
  it("Given passive messages (generate: false), Then they join the next generating turn's context, and passive messages sent after it wait for the next one", () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('p1', 'Order #4411 shipped.'), { generate: false }))
    expect(session.state.active).toBeNull()
    expect(session.messageIds()).toEqual(['p1'])
    session.push(inputs.message(userMessage('g1', 'Where is my order?')))
    session.push(inputs.message(userMessage('p2', 'Later context'), { generate: false }))
    expect(session.state.active?.inputId).toBe('g1')
    // The model context of g1's turn is the transcript up to g1: p1 is in it, p2 is not.
    expect(session.messageIds()).toEqual(['p1', 'g1'])
    expect(session.inboxIds()).toEqual(['p2'])
    session.respond('It shipped this morning.')
    expect(session.messageIds()).toEqual(['p1', 'g1', 'a2.ai:response:g1', 'p2'])
    expect(session.state.active).toBeNull()
    session.push(inputs.message(userMessage('g2')))
    expect(session.state.active).toMatchObject({ inputId: 'g2' })
    expect(session.messageIds().indexOf('p2')).toBeLessThan(session.messageIds().indexOf('g2'))
  })
})
