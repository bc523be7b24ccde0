import { describe, expect, it } from 'vitest'
import { inputs } from '../../../shared/ai.ts'
import { createAgentClient } from '../../../shared/client/index.ts'
import { text } from '../../../shared/testing/scripted-model.ts'
import { supportDesk } from '../../seeds/support-desk.ts'
import { servedAgent, textOf, tracked, until } from '../../support/served-agent.ts'

const hi = (id: string, words: string) => ({
  id,
  role: 'user' as const,
  parts: [{ type: 'text' as const, text: words }],
})

describe('createAgentClient: where state comes from', () => {
  it('hydrates from a server snapshot and streams on from its index, not from the start', async () => {
    const served = await servedAgent([text('First answer.'), text('Second answer.')])
    await served.agent.session('s1').append(...inputs.message(hi('m1', 'Hi')))
    await served.agent.runtime.idle()
    const initial = await served.agent.session('s1').state()

    const client = tracked(createAgentClient({ api: served.api }))
    const session = client.session('s1')
    session.hydrate(initial)
    expect(session.getSnapshot().confirmed).toEqual(initial)
    expect(textOf(session.getSnapshot().messages[1])).toBe('First answer.')
    session.subscribe(() => {})
    await session.sendMessage('Again')
    await until(() => textOf(session.getSnapshot().messages[3]) === 'Second answer.')
    expect(served.resumes[0]).toBe(initial.index)
  })

  it('pushes a hand-written new-input command without an ID under its message ID, as the server requires', async () => {
    const served = await servedAgent([text('Answer.')])
    const client = tracked(createAgentClient({ api: served.api }))
    const session = client.session('s1')
    const [stored] = await session.push({
      type: 'ai.control.requested',
      payload: { action: 'message', generate: true, message: hi('m9', 'Hi') },
    }).confirmed
    expect(stored?.id).toBe('m9')
  })

  it('an older snapshot does not replace newer state', async () => {
    const served = await servedAgent([text('First answer.'), text('Second answer.')])
    await served.agent.session('s1').append(...inputs.message(hi('m1', 'Hi')))
    await served.agent.runtime.idle()
    const stale = await served.agent.session('s1').state()
    await served.agent.session('s1').append(...inputs.message(hi('m2', 'More')))
    await served.agent.runtime.idle()
    const fresh = await served.agent.session('s1').state()

    const client = tracked(createAgentClient({ api: served.api }))
    const session = client.session('s1')
    session.hydrate(fresh)
    session.hydrate(stale)
    expect(session.getSnapshot().confirmed).toEqual(fresh)
  })

  it("with a contract, folds the app's reducer too and merges its state under AIState", async () => {
    const served = await servedAgent([text('Summary.')], { contract: supportDesk } as never)
    await served.agent.session('s1').append({ type: 'plan.changed', payload: { plan: 'pro' } })
    const initial = await served.agent.session('s1').state()

    const client = tracked(createAgentClient({ api: served.api, contract: supportDesk }))
    const session = client.session('s1')
    // The served agent is typed without its contract; the snapshot has the desk's keys.
    session.hydrate(initial as Parameters<typeof session.hydrate>[0])
    expect(session.getSnapshot().state.plan).toBe('pro')
    session.subscribe(() => {})
    await session.push({ type: 'ticket.flagged', payload: { ticketId: 'T-1' } }).confirmed
    await session.sendMessage('Summarize the flagged tickets.').confirmed
    const snapshot = await until(() => {
      const current = session.getSnapshot()
      return current.status === 'idle' && current.messages.length === 2 && current
    })
    expect(snapshot.state).toMatchObject({ plan: 'pro', flagged: ['T-1'] })
    const server = await served.agent.session('s1').state()
    expect(snapshot.confirmed).toEqual(server)
  })
})
