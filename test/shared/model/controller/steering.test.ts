import { describe, expect, it } from 'vitest'
import { inputs } from '../../../../shared/ai.ts'
import { FakeSession, userMessage } from '../../../support/fake-session.ts'

function runningTurn(): { session: FakeSession; turnId: string; generation: string } {
  const session = new FakeSession()
  session.push(inputs.message(userMessage('m1')))
  const turnId = session.state.active?.turnId as string
  const generation = session.start()
  return { session, turnId, generation }
}

describe('Steering and Send now', () => {
  it('Given queued messages and earlier steering, When steer() is sent, Then it goes "right after the turn\'s earlier steering, or first when there is none"', () => {
    const { session, turnId } = runningTurn()
    session.push(inputs.message(userMessage('q1')))
    session.push(inputs.steer(userMessage('s1'), { afterStepOf: turnId }))
    expect(session.inboxIds()).toEqual(['s1', 'q1'])
    session.push(inputs.steer(userMessage('s2'), { afterStepOf: turnId }))
    expect(session.inboxIds()).toEqual(['s1', 's2', 'q1'])
  })

  it('Given steering while a step runs, Then the turn "finishes its current model response and that response\'s tools ... then hands off before another model step"', () => {
    const { session, turnId, generation } = runningTurn()
    session.callTool(generation, 'call-1')
    session.push(inputs.steer(userMessage('s1'), { afterStepOf: turnId }))
    session.text(generation, 'output after the click', 't2')
    session.complete(generation)
    // The tool is still running: no hand-off, and no second step either.
    expect(session.state.active?.turnId).toBe(turnId)
    expect(session.eventsOf('ai.generation.requested')).toHaveLength(1)
    session.toolResult(generation, 'call-1')
    expect(session.eventsOf('ai.message.completed').at(-1)?.payload).toMatchObject({
      turnId,
      reason: 'handoff',
    })
    expect(session.state.active?.inputId).toBe('s1')
    // "Output produced after the click stays."
    const response = session.state.messages.find((message) => message.id === 'a2.ai:response:m1')
    expect(response?.parts).toContainEqual(
      expect.objectContaining({ type: 'text', text: 'output after the click' }),
    )
  })

  it('Given several steering messages for one turn, Then "everything steering that turn enters together as one new turn: the earlier messages as context and the last one generating"', () => {
    const { session, turnId, generation } = runningTurn()
    session.push(inputs.message(userMessage('q1')))
    session.push(inputs.steer(userMessage('s1'), { afterStepOf: turnId }))
    session.push(inputs.steer(userMessage('s2'), { afterStepOf: turnId }))
    session.push(inputs.queue.sendNow('q1', { afterStepOf: turnId }))
    expect(session.inboxIds()).toEqual(['s1', 's2', 'q1'])
    session.text(generation, 'partial')
    session.complete(generation)
    expect(session.state.active).toMatchObject({ inputId: 'q1', contextInputIds: ['s1', 's2'] })
    expect(session.messageIds()).toEqual(['m1', 'a2.ai:response:m1', 's1', 's2', 'q1'])
    expect(session.inboxIds()).toEqual([])
    // One model call answers them all.
    const requests = session.eventsOf('ai.generation.requested').map((event) => event.payload)
    expect(
      requests.filter(
        (request) => (request as { turnId: string }).turnId === session.state.active?.turnId,
      ),
    ).toHaveLength(1)
  })

  it('Given a pending approval and a pending input request, When steering hands off, Then "unanswered approval and input requests close, so the unapproved tool never runs"', () => {
    const { session, turnId, generation } = runningTurn()
    session.callTool(generation, 'call-1', { approval: 'ap-1' })
    session.push(
      inputs.requestInput({ inputRequestId: 'ask-1', request: { question: 'Which city?' } }),
    )
    session.complete(generation)
    expect(session.state.pendingApprovals).toHaveLength(1)
    session.push(inputs.steer(userMessage('s1'), { afterStepOf: turnId }))
    expect(session.state.pendingApprovals).toEqual([])
    expect(session.state.pendingInputs).toEqual([])
    expect(session.state.active?.inputId).toBe('s1')
    const response = session.state.messages.find((message) => message.id === 'a2.ai:response:m1')
    expect(response?.parts).toContainEqual(
      expect.objectContaining({
        toolCallId: 'call-1',
        state: 'output-denied',
        approval: expect.objectContaining({ approved: false }),
      }),
    )
    // The closed call got a denied result and is never offered to the tool runner.
    const results = session.eventsOf('ai.tool.result').map((event) => event.payload)
    expect(results).toEqual([expect.objectContaining({ toolCallId: 'call-1', outcome: 'denied' })])
    expect(session.state.tools.filter((tool) => tool.toolCallId === 'call-1')).toEqual([])
  })

  it('Given an approval the user denied, When steering hands off, Then "a denied approval never blocks the handoff"', () => {
    const { session, turnId, generation } = runningTurn()
    session.callTool(generation, 'call-1', { approval: 'ap-1' })
    session.complete(generation)
    const [pending] = session.state.pendingApprovals
    if (!pending) throw new Error('no approval')
    session.push(inputs.steer(userMessage('s1'), { afterStepOf: turnId }))
    expect(session.state.active?.inputId).toBe('s1')
    expect(session.push(inputs.approval(pending, { approved: false }))).toMatchObject({
      reason: 'stale-approval',
    })
  })

  it('Given no active turn, When steer() is sent, Then it "sends like sendMessage()"', () => {
    const session = new FakeSession()
    session.push(inputs.steer(userMessage('s1'), { afterStepOf: null }))
    expect(session.state.active?.inputId).toBe('s1')
    expect(session.messageIds()).toEqual(['s1'])
  })

  it('Given a queued passive user message, When Send now targets the active turn, Then it keeps its ID and latest content and is promoted to generation', () => {
    const { session, turnId, generation } = runningTurn()
    session.push(inputs.message(userMessage('p1', 'first'), { generate: false }))
    session.push(inputs.queue.edit(userMessage('p1', 'edited')))
    session.push(inputs.queue.sendNow('p1', { afterStepOf: turnId }))
    expect(session.state.inbox.items[0]).toMatchObject({
      id: 'p1',
      generate: true,
      afterStepOf: turnId,
    })
    session.complete(generation)
    expect(session.state.active?.inputId).toBe('p1')
    expect(session.state.messages.at(-1)?.parts).toEqual([{ type: 'text', text: 'edited' }])
  })

  it('Given steering queued with afterStepOf, When it is edited, Then the hand-off holds: "editing keeps it"', () => {
    const { session, turnId, generation } = runningTurn()
    session.push(inputs.steer(userMessage('s1'), { afterStepOf: turnId }))
    session.push(inputs.queue.edit(userMessage('s1', 'edited steering')))
    expect(session.state.active?.handoff).toBe(true)
    session.complete(generation)
    expect(session.eventsOf('ai.message.completed').at(-1)?.payload).toMatchObject({
      turnId,
      reason: 'handoff',
    })
    expect(session.state.active?.inputId).toBe('s1')
  })

  it('Given steering queued with afterStepOf, When the item is removed, Then "removing the item cancels it": the turn answers its tool result instead of handing off to nothing', () => {
    const { session, turnId, generation } = runningTurn()
    session.callTool(generation, 'call-1')
    session.push(inputs.steer(userMessage('s1'), { afterStepOf: turnId }))
    session.push(inputs.queue.remove('s1'))
    expect(session.state.active?.handoff).toBe(false)
    session.complete(generation)
    session.toolResult(generation, 'call-1')
    expect(session.eventsOf('ai.message.completed')).toEqual([])
    expect(session.state.active).toMatchObject({ turnId, step: 2, handoff: false })
    expect(session.eventsOf('ai.generation.requested').at(-1)?.payload).toMatchObject({
      turnId,
      step: 2,
    })
    session.respond('Here is the answer to the tool result.')
    expect(session.eventsOf('ai.message.completed').at(-1)?.payload).toMatchObject({
      turnId,
      reason: 'finished',
    })
  })

  it('Given two steering items for a turn, When one is removed, Then the other still hands off', () => {
    const { session, turnId, generation } = runningTurn()
    session.push(inputs.steer(userMessage('s1'), { afterStepOf: turnId }))
    session.push(inputs.steer(userMessage('s2'), { afterStepOf: turnId }))
    session.push(inputs.queue.remove('s1'))
    expect(session.state.active?.handoff).toBe(true)
    session.complete(generation)
    expect(session.state.active).toMatchObject({ inputId: 's2', contextInputIds: [] })
  })
})
