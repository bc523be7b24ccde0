import { describe, expect, it } from 'vitest'
import { inputs } from '../../../../shared/ai.ts'
import { FakeSession, userMessage } from '../../../support/fake-session.ts'

describe('What happens after a send', () => {
  it('Given an idle session, When one generating user message is sent, Then it becomes message.created, control.committed, control.decided, generation.requested', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    expect(session.log.map((event) => event.type)).toEqual([
      'ai.control.requested',
      'ai.message.created',
      'ai.control.committed',
      'ai.control.decided',
      'ai.generation.requested',
    ])
    expect(session.state.starting).toBe(true)
    expect(session.state.active).toMatchObject({ inputId: 'm1', phase: 'starting' })
    expect(session.state.activeRequestId).toBe(session.log[4]?.id)
    expect(session.state.receipt).toEqual({
      commandId: 'm1',
      action: 'message',
      outcome: 'applied',
    })
  })

  it('Given a step that called a tool, When the tool result and generation completion arrive in either order, Then the next step is requested only after both', () => {
    for (const order of ['result-first', 'completion-first'] as const) {
      const session = new FakeSession()
      session.push(inputs.message(userMessage('m1')))
      const generation = session.start()
      session.callTool(generation, 'call-1')
      const requestsBefore = session.eventsOf('ai.generation.requested').length
      if (order === 'result-first') session.toolResult(generation, 'call-1')
      else session.complete(generation)
      expect(session.eventsOf('ai.generation.requested')).toHaveLength(requestsBefore)
      if (order === 'result-first') session.complete(generation)
      else session.toolResult(generation, 'call-1')
      const requests = session.eventsOf('ai.generation.requested')
      expect(requests).toHaveLength(requestsBefore + 1)
      expect(requests.at(-1)?.payload).toMatchObject({ step: 2 })
    }
  })

  it('Given a turn whose last step called no tool, When that step completes, Then ai.message.completed ends the turn and the next queued turn is requested', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    session.push(inputs.message(userMessage('m2')))
    session.respond('First answer')
    const types = session.log.map((event) => event.type)
    expect(types.slice(-4)).toEqual([
      'ai.message.completed',
      'ai.message.created',
      'ai.control.committed',
      'ai.generation.requested',
    ])
    expect(session.state.active?.inputId).toBe('m2')
  })

  it('Given a response streamed over several progress events, Then state.messages shows the streamed UIMessage and deriveUIMessages() gives the same transcript from raw history', async () => {
    const { deriveUIMessages } = await import('../../../../shared/ai.ts')
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1', 'Hi')))
    const generation = session.start()
    session.progress(generation, [{ type: 'start-step' }, { type: 'text-start', id: 't' }])
    session.progress(generation, [{ type: 'text-delta', id: 't', delta: 'Hel' }])
    session.progress(generation, [
      { type: 'text-delta', id: 't', delta: 'lo' },
      { type: 'text-end', id: 't' },
    ])
    session.complete(generation)
    const response = session.state.messages[1]
    expect(response?.role).toBe('assistant')
    expect(response?.parts).toContainEqual(
      expect.objectContaining({ type: 'text', text: 'Hello', state: 'done' }),
    )
    expect(deriveUIMessages(session.log)).toEqual(session.state.messages)
  })

  it('Given a step limit, When every step calls a tool, Then the response completes with max-steps', () => {
    const session = new FakeSession({ maxSteps: 2 })
    session.push(inputs.message(userMessage('m1')))
    for (const step of [1, 2]) {
      const generation = session.start()
      session.callTool(generation, `call-${step}`)
      session.toolResult(generation, `call-${step}`)
      session.complete(generation)
    }
    expect(session.eventsOf('ai.message.completed').at(-1)?.payload).toMatchObject({
      reason: 'max-steps',
    })
    expect(session.state.active).toBeNull()
  })
})
