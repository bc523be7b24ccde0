import { describe, expect, it } from 'vitest'
import { inputs } from '../../../../shared/ai.ts'
import { deadLetterEvents, type GivenUp } from '../../../../shared/model/controller/dead-letter.ts'
import { toolCallKey } from '../../../../shared/model/ids/ids.ts'
import { FakeSession, userMessage } from '../../../support/fake-session.ts'

const givenUp: GivenUp = {
  sessionId: 'fake',
  lane: 'generation',
  error: 'throttled',
  attempts: 5,
  occurrence: 'msg-1',
}

describe('A lane that gives up on its work', () => {
  it('Given a model step that never started, When the generation lane is dead-lettered, Then the turn fails with the reason and retry() requests the step again', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const turnId = session.state.active?.turnId as string
    session.fact(...deadLetterEvents(session.state, givenUp))
    expect(session.state.active).toMatchObject({
      phase: 'failed',
      error: 'The model step was given up after 5 attempts: throttled',
    })
    expect(session.state.activeRequestId).toBeNull()
    expect(session.push(inputs.retry({ turnId, retryId: 'r1' })).outcome).toBe('applied')
    expect(session.eventsOf('ai.generation.requested')).toHaveLength(2)
    session.respond('answered')
    expect(session.state.active).toBeNull()
  })

  it('Given a running model step, When it is dead-lettered, Then its attempt counts as failed: nothing is left to serve', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const generation = session.start()
    session.text(generation, 'half')
    session.fact(...deadLetterEvents(session.state, givenUp))
    expect(session.state.active?.phase).toBe('failed')
    expect(session.state.activeGeneration).toMatchObject({
      generationId: generation,
      status: 'failed',
    })
  })

  it('Given a running model step that recorded a tool call, When it is dead-lettered, Then the step ends on its call: the turn goes on, and no Retry asks the model again', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const generation = session.start()
    session.callTool(generation, 'call_0')
    session.fact(...deadLetterEvents(session.state, givenUp))
    // Not failed: the call is the step's, and its tool runs (or ran) as recorded.
    expect(session.state.active?.phase).not.toBe('failed')
    expect(session.state.activeGeneration).toMatchObject({
      generationId: generation,
      status: 'completed',
    })
    expect(session.state.deadLetters).toHaveLength(1)
    expect(session.eventsOf('ai.generation.requested')).toHaveLength(1)
    session.toolResult(generation, 'call_0')
    session.settle()
    // The next step sees the result: the model is asked to go on, not to start over.
    expect(session.eventsOf('ai.generation.requested')).toHaveLength(2)
    expect(session.eventsOf('ai.generation.requested').at(-1)?.payload).toMatchObject({ step: 2 })
  })

  it('Given a dead letter for a request the turn has moved past, Then it is recorded and the turn goes on', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const stale = deadLetterEvents(session.state, givenUp)
    session.respond('answered')
    session.push(inputs.message(userMessage('m2')))
    session.fact(...stale)
    expect(session.state.active?.phase).toBe('starting')
    expect(session.state.deadLetters).toHaveLength(1)
  })

  it('Given a tool call whose lane gave up, Then the call gets an error result and the turn goes on to its next step', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const generation = session.start()
    session.callTool(generation, 'call_0')
    session.complete(generation)
    const [call] = session.state.tools
    const events = deadLetterEvents(session.state, {
      ...givenUp,
      lane: 'tools',
      key: toolCallKey(call as NonNullable<typeof call>),
      error: 'ProvisionedThroughputExceededException',
    })
    expect(events.map((event) => event.type)).toEqual([
      'ai.handler.dead-lettered',
      'ai.tool.result',
    ])
    session.fact(...events)
    expect(session.state.tools[0]?.status).toBe('failed')
    const parts = session.state.messages.at(-1)?.parts ?? []
    expect(parts).toContainEqual(
      expect.objectContaining({
        toolCallId: 'call_0',
        state: 'output-error',
        errorText:
          'A2 gave up running the tool after 5 attempts: ProvisionedThroughputExceededException',
      }),
    )
    // The join settles: the next step is requested.
    expect(session.eventsOf('ai.generation.requested')).toHaveLength(2)
  })

  it("Given the same occurrence recorded twice, Then it is one event; another session's has another ID", () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const [once] = deadLetterEvents(session.state, givenUp)
    const [again] = deadLetterEvents(session.state, givenUp)
    const [other] = deadLetterEvents(session.state, { ...givenUp, sessionId: 'other' })
    expect(again?.id).toBe(once?.id)
    expect(other?.id).not.toBe(once?.id)
  })

  it('keeps a long failure message short enough to store', () => {
    const session = new FakeSession()
    const [event] = deadLetterEvents(session.state, {
      ...givenUp,
      lane: 'metadata',
      error: 'x'.repeat(100_000),
    })
    expect((event?.payload as { error?: string } | undefined)?.error?.length).toBeLessThanOrEqual(
      2_001,
    )
    expect(event?.payload).not.toHaveProperty('requestId')
  })
})
