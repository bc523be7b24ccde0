import { describe, expect, it } from 'vitest'
import { inputs, stoppedUnanswered } from '../../../../shared/ai.ts'
import { FakeSession, userMessage } from '../../../support/fake-session.ts'

describe('Stop and interruption', () => {
  it('Given a streaming response, When Stop carries the frontier the user saw, Then the response "rewinds to that frontier, keeping the partial text the user saw"', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const turnId = session.state.active?.turnId as string
    const generation = session.start()
    session.progress(generation, [
      { type: 'start-step' },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'The answer ' },
    ])
    const frontier = session.index
    session.progress(generation, [
      { type: 'text-delta', id: 't', delta: 'arrived after the click' },
    ])
    session.push(inputs.stop({ turnId, frontier }))
    expect(session.state.active).toBeNull()
    const response = session.state.messages.at(-1)
    expect(response?.parts).toEqual([
      { type: 'step-start' },
      expect.objectContaining({ type: 'text', text: 'The answer ' }),
    ])
  })

  it('Given a stopped response and a finished one, Then only the stopped one is in stoppedResponseIds, so a UI can mark it', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const turnId = session.state.active?.turnId as string
    const generation = session.start()
    session.progress(generation, [
      { type: 'start-step' },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Cut short' },
    ])
    session.push(inputs.stop({ turnId, frontier: session.index }))
    const stopped = session.state.messages.at(-1)?.id
    expect(session.state.stoppedResponseIds).toEqual([stopped])

    session.push(inputs.message(userMessage('m2')))
    session.respond('Answered in full')
    expect(session.state.messages.at(-1)?.id).not.toBe(stopped)
    expect(session.state.stoppedResponseIds).toEqual([stopped])
  })

  it('Given Stop before the first token, Then no empty response stays in the transcript, yet stoppedResponseIds names it and stoppedUnanswered its input, so a UI can still mark the turn', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const turnId = session.state.active?.turnId as string
    const response = session.state.active?.responseMessageId
    session.start()
    session.push(inputs.stop({ turnId, frontier: session.index }))
    expect(session.state.active).toBeNull()
    expect(session.state.messages.map((message) => message.id)).toEqual(['m1'])
    expect(session.state.stoppedResponseIds).toEqual([response])
    expect([...stoppedUnanswered(session.state)]).toEqual(['m1'])

    // A stopped response that kept text is the transcript's to mark, not its input's.
    session.push(inputs.message(userMessage('m2')))
    const second = session.state.active?.turnId as string
    const generation = session.start()
    session.progress(generation, [
      { type: 'start-step' },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Cut short' },
    ])
    session.push(inputs.stop({ turnId: second, frontier: session.index }))
    expect(session.state.stoppedResponseIds).toHaveLength(2)
    expect([...stoppedUnanswered(session.state)]).toEqual(['m1'])
  })

  it('Given tools in every state at the frontier, When Stop lands, Then completed tools stay, accepted tools awaiting completion become output-error, and streaming drafts leave', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const turnId = session.state.active?.turnId as string
    const generation = session.start()
    session.callTool(generation, 'done-call')
    session.toolResult(generation, 'done-call')
    session.callTool(generation, 'running-call')
    session.progress(generation, [
      { type: 'tool-input-start', toolCallId: 'draft-call', toolName: 'closeTicket' },
      { type: 'tool-input-delta', toolCallId: 'draft-call', inputTextDelta: '{"ticketId":"T' },
    ])
    session.push(inputs.stop({ turnId, frontier: session.index }))
    const parts = session.state.messages.at(-1)?.parts ?? []
    const byCall = (id: string) =>
      parts.find((part) => 'toolCallId' in part && part.toolCallId === id)
    expect(byCall('done-call')).toMatchObject({
      state: 'output-available',
      output: { closed: true },
    })
    expect(byCall('running-call')).toMatchObject({ state: 'output-error' })
    expect(byCall('draft-call')).toBeUndefined()
    // The draft's progress stays in the raw log.
    expect(JSON.stringify(session.log)).toContain('draft-call')
    // The running call's work is cancelled, and the controller settles it in
    // its next round (its worker is fenced out by the revoked claim).
    expect(session.eventsOf('ai.tool.interrupted').map((event) => event.payload)).toEqual([
      { toolCallId: 'running-call', generationId: generation, reason: 'ended' },
    ])
    expect(session.state.tools).toEqual([])
  })

  it('Given a stopped response, When the aborted model and tool still write events, Then "later events cannot reactivate a stopped response"', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const turnId = session.state.active?.turnId as string
    const generation = session.start()
    session.callTool(generation, 'call-1')
    session.text(generation, 'seen')
    session.push(inputs.stop({ turnId, frontier: session.index }))
    const stopped = structuredClone(session.state.messages)
    session.text(generation, 'late text', 't9')
    session.toolResult(generation, 'call-1')
    session.complete(generation)
    expect(session.state.messages).toEqual(stopped)
    expect(session.state.active).toBeNull()
    expect(session.state.tools).toEqual([])
  })

  it('Given a queued message, When Stop ends the turn, Then it "admits the next input when admission is running"', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const turnId = session.state.active?.turnId as string
    session.push(inputs.message(userMessage('m2')))
    session.push(inputs.stop({ turnId, frontier: session.index }))
    expect(session.state.active?.inputId).toBe('m2')
  })

  it('Given a Stop for an older turn, When it is decided after its successor started, Then "a Stop for an older turn cannot cancel its successor"', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const older = session.state.active?.turnId as string
    session.push(inputs.message(userMessage('m2')))
    session.respond('first')
    const successor = session.state.active?.turnId
    expect(session.push(inputs.stop({ turnId: older, frontier: 3 }))).toMatchObject({
      reason: 'stale-turn',
    })
    expect(session.state.active?.turnId).toBe(successor)
  })

  it('Given interrupt() with one owner, When that owner is no longer current, Then the delayed interruption cannot stop later work', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const owner = {
      requestId: session.state.activeRequestId as string,
      messageId: session.state.activeResponseMessageId as string,
    }
    session.start()
    expect(session.push(inputs.interrupt(owner))).toMatchObject({ reason: 'stale-owner' })
    const generation = session.state.activeGeneration
    if (!generation) throw new Error('no generation')
    const applied = session.push(
      inputs.interrupt({
        generationId: generation.generationId,
        responseMessageId: generation.responseMessageId,
      }),
    )
    expect(applied.outcome).toBe('applied')
    expect(session.state.active).toBeNull()
  })
})

describe('Superseded attempts', () => {
  it('Given an incomplete attempt marked superseded, When it still streams, Then its late chunks are ignored and its partial step leaves when the replacement starts', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const requestId = session.state.activeRequestId as string
    const first = session.start()
    session.text(first, 'from the lost attempt')
    session.fact({
      id: 'superseded:1',
      type: 'ai.generation.superseded',
      payload: { generationId: first, requestId, reason: 'claim expired' },
    })
    expect(session.state.activeRequestId).toBe(requestId)
    session.text(first, 'late chunk', 't2')
    expect(JSON.stringify(session.state.messages)).not.toContain('late chunk')
    const second = session.start()
    session.text(second, 'from the replacement')
    session.complete(second)
    const text = JSON.stringify(session.state.messages.at(-1))
    expect(text).toContain('from the replacement')
    expect(text).not.toContain('from the lost attempt')
  })
})
