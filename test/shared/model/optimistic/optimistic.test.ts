import { describe, expect, it } from 'vitest'
import {
  type ControlCommandInput,
  inputs,
  optimisticAIState,
  type PendingCommand,
} from '../../../../shared/ai.ts'
import { FakeSession, userMessage } from '../../../support/fake-session.ts'

const pending = (command: ControlCommandInput[], id?: string): PendingCommand => {
  const [event] = command
  if (!event) throw new Error('no command')
  return { ...event, id: id ?? event.id ?? 'pending-1' } as PendingCommand
}

describe('Optimistic conversation display', () => {
  it('Given an idle, unpaused session, When a send is pending, Then it "appears in state.messages at once with state.starting: true"', () => {
    const session = new FakeSession()
    const view = optimisticAIState(session.state, [pending(inputs.message(userMessage('m1')))])
    expect(view.messages.map((message) => message.id)).toEqual(['m1'])
    expect(view.starting).toBe(true)
    expect(session.state.messages).toEqual([])
  })

  it('Given an active turn or a paused inbox, When sends are pending, Then they "wait in state.inbox.items"', () => {
    const busy = new FakeSession()
    busy.push(inputs.message(userMessage('m1')))
    const view = optimisticAIState(busy.state, [
      pending(inputs.message(userMessage('m2'))),
      pending(inputs.message(userMessage('m3'))),
    ])
    expect(view.inbox.items.map((item) => item.id)).toEqual(['m2', 'm3'])
    const paused = new FakeSession()
    paused.push(inputs.pause({ when: 'after-turn' }))
    const pausedView = optimisticAIState(paused.state, [pending(inputs.message(userMessage('m4')))])
    expect(pausedView.inbox.items.map((item) => item.id)).toEqual(['m4'])
    expect(pausedView.messages).toEqual([])
  })

  it('Given an active turn, When steering and Send now are pending, Then they "appear in state.messages after the current response"', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    session.push(inputs.message(userMessage('q1')))
    const turnId = session.state.active?.turnId as string
    session.text(session.start(), 'streaming')
    const view = optimisticAIState(session.state, [
      pending(inputs.steer(userMessage('s1'), { afterStepOf: turnId })),
      pending(inputs.queue.sendNow('q1', { afterStepOf: turnId }), 'send-now-1'),
    ])
    expect(view.messages.map((message) => message.id)).toEqual([
      'm1',
      'a2.ai:response:m1',
      's1',
      'q1',
    ])
    expect(view.inbox.items).toEqual([])
  })

  it('Given an active turn, When a Stop is pending, Then it "clears state.active at once", and a rejected Stop changes nothing', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const turnId = session.state.active?.turnId as string
    session.text(session.start(), 'partial')
    expect(
      optimisticAIState(session.state, [pending(inputs.stop({ turnId, frontier: session.index }))])
        .active,
    ).toBeNull()
    const stale = optimisticAIState(session.state, [
      pending(inputs.stop({ turnId: 'a2.ai:turn:old', frontier: 1 })),
    ])
    expect(stale).toEqual(session.state)
  })

  it("Given a speculative idle send, When another client's accepted turn arrives first, Then the send moves back into the queue", () => {
    const session = new FakeSession()
    const mine = pending(inputs.message(userMessage('mine')))
    expect(optimisticAIState(session.state, [mine]).messages.map((message) => message.id)).toEqual([
      'mine',
    ])
    session.push(inputs.message(userMessage('theirs')))
    const view = optimisticAIState(session.state, [mine])
    expect(view.messages.map((message) => message.id)).toEqual(['theirs'])
    expect(view.inbox.items.map((item) => item.id)).toEqual(['mine'])
  })
})
