import { describe, expect, it } from 'vitest'
import { inputs, isCompactionPart } from '../../../../shared/ai.ts'
import { FakeSession, userMessage } from '../../../support/fake-session.ts'

describe('Compaction and model metadata in state', () => {
  it('Given a compaction during a response, Then a data-a2-compaction part settles in place (running, then completed) and state.compaction holds it', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const generation = session.start()
    const messageId = session.state.activeResponseMessageId as string
    session.fact({
      id: 'compaction-started',
      type: 'ai.compaction.started',
      payload: { compactionId: 'c1', messageId, inputTokens: 90_000, thresholdTokens: 80_000 },
    })
    expect(session.state.compaction).toMatchObject({ status: 'running' })
    session.text(generation, 'answer')
    session.fact({
      id: 'compaction-done',
      type: 'ai.compaction.completed',
      payload: { compactionId: 'c1', summary: 'Earlier: order #4411.', upToMessageId: 'm1' },
    })
    const parts = session.state.messages.at(-1)?.parts ?? []
    const markers = parts.filter(isCompactionPart)
    expect(markers).toEqual([
      {
        type: 'data-a2-compaction',
        id: 'c1',
        data: {
          status: 'completed',
          inputTokens: 90_000,
          thresholdTokens: 80_000,
          summary: 'Earlier: order #4411.',
        },
      },
    ])
    expect(session.state.compaction).toMatchObject({ status: 'completed', upToMessageId: 'm1' })
  })

  it('Given model metadata lookups, Then state.modelMetadata is pending, then resolved or unavailable, and a repeated request keeps what is known', () => {
    const session = new FakeSession()
    session.fact({
      id: 'md1',
      type: 'ai.model.metadata.requested',
      payload: { modelId: 'openai/gpt-5.6-terra' },
    })
    expect(session.state.modelMetadata).toEqual({ 'openai/gpt-5.6-terra': { status: 'pending' } })
    session.fact({
      id: 'md2',
      type: 'ai.model.metadata.resolved',
      payload: { modelId: 'openai/gpt-5.6-terra', status: 'resolved', contextWindow: 400_000 },
    })
    session.fact({
      id: 'md3',
      type: 'ai.model.metadata.requested',
      payload: { modelId: 'openai/gpt-5.6-terra' },
    })
    session.fact({
      id: 'md4',
      type: 'ai.model.metadata.resolved',
      payload: { modelId: 'x/unknown', status: 'unavailable' },
    })
    expect(session.state.modelMetadata).toEqual({
      'openai/gpt-5.6-terra': { status: 'resolved', contextWindow: 400_000 },
      'x/unknown': { status: 'unavailable' },
    })
  })

  it('Given ai.session.closed, Then state.closed is true and commands are rejected with session-closed', () => {
    const session = new FakeSession()
    session.fact({ id: 'closed', type: 'ai.session.closed', payload: {} })
    expect(session.state.closed).toBe(true)
    expect(session.push(inputs.message(userMessage('late')))).toMatchObject({
      reason: 'session-closed',
    })
  })
})
