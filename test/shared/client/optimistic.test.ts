import { describe, expect, it } from 'vitest'
import { AgentClientError, createAgentClient } from '../../../shared/client/index.ts'
import { text } from '../../../shared/testing/scripted-model.ts'
import { servedAgent, textOf, tracked, until } from '../../support/served-agent.ts'

describe('createAgentClient: optimistic state', () => {
  it('an idle send "appears in state.messages at once with state.starting: true", then converges on the confirmed state', async () => {
    const served = await servedAgent([text('Hello!')])
    const client = tracked(createAgentClient({ api: served.api }))
    const session = client.session('s1')
    session.subscribe(() => {})

    const sent = session.sendMessage({
      id: 'm1',
      role: 'user',
      parts: [{ type: 'text', text: 'Hi' }],
    })
    const preview = session.getSnapshot()
    expect(preview.messages.map((message) => message.id)).toEqual(['m1'])
    expect(preview.state.starting).toBe(true)
    expect(preview.status).toBe('starting')
    expect(preview.indicator).toBe('starting')
    expect(preview.confirmed.state.messages).toEqual([])

    await sent.confirmed
    const settled = await until(() => {
      const snapshot = session.getSnapshot()
      return snapshot.status === 'idle' && snapshot.messages.length === 2 && snapshot
    })
    // No pending command is left over: what is shown is exactly what is confirmed.
    expect(settled.state).toBe(settled.confirmed.state)
    expect(settled.messages.map((message) => message.id)).toEqual(['m1', 'a2.ai:response:m1'])
  })

  it('Stop "clears state.active at once" and sends the rendered frontier; the answer keeps the text the user saw', async () => {
    const served = await servedAgent([
      { hang: true, parts: text('The first half of an answer', { chunks: 6 }).slice(0, 6) },
    ])
    const client = tracked(createAgentClient({ api: served.api }))
    const session = client.session('s1')
    session.subscribe(() => {})
    await session.sendMessage('Tell me a story')
    const rendered = await until(() => {
      const snapshot = session.getSnapshot()
      return textOf(snapshot.messages[1]).length > 0 && snapshot
    })
    expect(rendered.status).toBe('streaming')

    const stopping = session.stop()
    expect(session.getSnapshot().state.active).toBeNull()
    expect(session.getSnapshot().status).toBe('idle')
    const [stop] = await stopping
    expect(stop?.payload).toEqual({
      action: 'stop',
      turnId: rendered.state.active?.turnId,
      frontier: rendered.confirmed.index,
    })
    // Nothing left to stop: no command.
    expect(await session.stop()).toEqual([])

    await stopping.confirmed
    await served.agent.runtime.idle()
    const settled = await until(() => {
      const snapshot = session.getSnapshot()
      return snapshot.state === snapshot.confirmed.state && snapshot.state.receipt && snapshot
    })
    expect(settled.state.receipt).toMatchObject({ action: 'stop', outcome: 'applied' })
    expect(textOf(settled.messages[1])).toBe(textOf(rendered.messages[1]))
    expect(served.model.calls[0]?.abortSignal?.aborted).toBe(true)
  })

  it('sends while a turn is active "wait in state.inbox.items", and a Send now hands the turn off', async () => {
    const served = await servedAgent([
      { hang: true, parts: text('Working on it', { chunks: 2 }).slice(0, 3) },
      text('Answer to the urgent one.'),
    ])
    const client = tracked(createAgentClient({ api: served.api }))
    const session = client.session('s1')
    session.subscribe(() => {})
    await session.sendMessage('First')
    await until(() => session.getSnapshot().status === 'streaming')

    void session.sendMessage({ id: 'q1', role: 'user', parts: [{ type: 'text', text: 'Later' }] })
    void session.sendMessage({ id: 'q2', role: 'user', parts: [{ type: 'text', text: 'Urgent' }] })
    expect(session.getSnapshot().state.inbox.items.map((item) => item.id)).toEqual(['q1', 'q2'])
    const moved = session.queue.move({ inputId: 'q2', beforeId: 'q1' })
    expect(session.getSnapshot().state.inbox.items.map((item) => item.id)).toEqual(['q2', 'q1'])
    await moved.confirmed
    await until(() => {
      const { state, confirmed } = session.getSnapshot()
      return (
        state === confirmed.state && state.inbox.items.map((item) => item.id).join() === 'q2,q1'
      )
    })
  })

  it('a push the server refuses restores the view and rejects with a typed error', async () => {
    const served = await servedAgent([text('Hello!'), text('Again')])
    const client = tracked(createAgentClient({ api: served.api }))
    const session = client.session('s1')
    session.subscribe(() => {})
    const message = {
      id: 'm1',
      role: 'user' as const,
      parts: [{ type: 'text' as const, text: 'Hi' }],
    }
    await session.sendMessage(message)
    // Sent again, identical: it replays instead of duplicating.
    await session.sendMessage(message).confirmed
    await until(
      () => session.getSnapshot().status === 'idle' && session.getSnapshot().messages.length === 2,
    )
    const before = session.getSnapshot().state

    const reused = session.sendMessage({ ...message, parts: [{ type: 'text', text: 'Different' }] })
    expect(session.getSnapshot().state).not.toBe(before)
    const error = await reused.catch((cause: unknown) => cause)
    expect(error).toBeInstanceOf(AgentClientError)
    expect(error).toMatchObject({ code: 'PARTIAL_DUPLICATE_BATCH', status: 409 })
    await expect(reused.confirmed).rejects.toBe(error)
    expect(session.getSnapshot().state).toEqual(before)
  })
})
