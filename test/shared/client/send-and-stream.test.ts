import { describe, expect, it } from 'vitest'
import { createAgentClient } from '../../../shared/client/index.ts'
import { text } from '../../../shared/testing/scripted-model.ts'
import { servedAgent, textOf, tracked, until } from '../../support/served-agent.ts'

describe('createAgentClient: send and stream', () => {
  it('sendMessage resolves to the stored command, .confirmed when the stream delivers it, and the answer streams in', async () => {
    const served = await servedAgent([text('Hello from the agent', { chunks: 5 })], {
      chunkDelayMs: 30,
    })
    const client = tracked(createAgentClient({ api: served.api }))
    const session = client.session('s1')
    const statuses: string[] = []
    const texts = new Set<string>()
    session.subscribe(() => {
      const snapshot = session.getSnapshot()
      statuses.push(snapshot.status)
      if (snapshot.messages[1]) texts.add(textOf(snapshot.messages[1]))
    })

    const sent = session.sendMessage('Hi')
    expect(session.getSnapshot().status).toBe('starting')
    const stored = await sent
    expect(stored).toHaveLength(1)
    expect(stored[0]).toMatchObject({ type: 'ai.control.requested', index: 1, sessionId: 's1' })
    expect(await sent.confirmed).toBe(stored)
    expect(session.getSnapshot().confirmed.index).toBeGreaterThanOrEqual(1)

    const done = await until(() => {
      const snapshot = session.getSnapshot()
      return snapshot.status === 'idle' && snapshot.messages.length === 2 && snapshot
    })
    expect(done.messages.map((message) => [message.role, textOf(message)])).toEqual([
      ['user', 'Hi'],
      ['assistant', 'Hello from the agent'],
    ])
    expect(done.confirmed.index).toBe(await served.agent.runtime.log.session('s1').head())
    const { state } = await served.agent.session('s1').state()
    expect(done.state).toEqual(state)
    expect(statuses).toContain('streaming')
    // It streamed: the user saw the answer grow, not arrive whole.
    expect(texts.size).toBeGreaterThan(2)
    expect(statuses.at(-1)).toBe('idle')
  })

  it('a Node service enqueues inputs with the same client, without opening a stream', async () => {
    const served = await servedAgent([text('Noted.')])
    const client = tracked(createAgentClient({ api: served.api }))
    const stored = await client.session('from-a-job').sendMessage('Order #4411 shipped.')
    expect(stored[0]?.id).toEqual(expect.any(String))
    await served.agent.runtime.idle()
    expect(served.resumes).toEqual([])
    const { state } = await served.agent.session('from-a-job').state()
    expect(textOf(state.messages[1])).toBe('Noted.')
  })
})
