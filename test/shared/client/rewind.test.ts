import { describe, expect, it } from 'vitest'
import { inputs } from '../../../shared/ai.ts'
import { type ClientSession, createAgentClient } from '../../../shared/client/index.ts'
import { text } from '../../../shared/testing/scripted-model.ts'
import {
  type ServedAgent,
  servedAgent,
  textOf,
  tracked,
  until,
} from '../../support/served-agent.ts'

const user = (id: string, said: string) =>
  inputs.message({ id, role: 'user', parts: [{ type: 'text', text: said }] })

function clientFor(served: ServedAgent): ClientSession {
  const client = tracked(
    createAgentClient({ api: served.api, reconnect: { baseDelayMs: 20, maxDelayMs: 100 } }),
  )
  return client.session('s1')
}

/** The client's confirmed state is the server's, index for index. */
async function expectSameAsServer(served: ServedAgent, session: ClientSession): Promise<void> {
  await served.agent.runtime.idle()
  const server = await served.agent.session('s1').state()
  await until(() => session.getSnapshot().confirmed.index === server.index)
  expect(session.getSnapshot().confirmed).toEqual(server)
}

describe('createAgentClient: a log that went back', () => {
  it('notices a head below its applied index (a memory store restarted) and folds the new log from the start', async () => {
    const served = await servedAgent([text('The old answer.')])
    const session = clientFor(served)
    session.subscribe(() => {})
    await session.sendMessage('Old question')
    await until(() => textOf(session.getSnapshot().messages[1]) === 'The old answer.')
    const applied = session.getSnapshot().confirmed.index

    await served.restartWithNewLog([text('The new answer.')])
    await until(() => session.getSnapshot().confirmed.index < applied)
    await session.sendMessage('New question')
    await until(() => textOf(session.getSnapshot().messages[1]) === 'The new answer.')
    await expectSameAsServer(served, session)
    expect(session.getSnapshot().messages.map(textOf)).toEqual(['New question', 'The new answer.'])
  })

  it("notices a different log that already grew past its index, by the server's ': after' marker, and re-syncs", async () => {
    const served = await servedAgent([text('The old answer.')])
    const session = clientFor(served)
    const stop = session.subscribe(() => {})
    await session.sendMessage('Old question')
    await until(() => textOf(session.getSnapshot().messages[1]) === 'The old answer.')
    const applied = session.getSnapshot().confirmed.index
    stop()

    // While this client is away, the new log gets longer than what it applied.
    await served.restartWithNewLog([text('New one.'), text('New two.')])
    await served.agent.session('s1').append(...user('n1', 'New first'))
    await served.agent.runtime.idle()
    await served.agent.session('s1').append(...user('n2', 'New second'))
    await served.agent.runtime.idle()
    expect(await served.agent.runtime.log.session('s1').head()).toBeGreaterThan(applied)

    session.subscribe(() => {})
    await expectSameAsServer(served, session)
    expect(session.getSnapshot().messages.map(textOf)).toEqual([
      'New first',
      'New one.',
      'New second',
      'New two.',
    ])
  })
})

describe('createAgentClient: a session erased and started over elsewhere', () => {
  it("notices the new life by the server's ': life' marker where it repeats the old life's IDs, and re-syncs", async () => {
    const served = await servedAgent([text('An answer.'), text('Changed.'), text('Another.')])
    const session = clientFor(served)
    const stop = session.subscribe(() => {})
    // A service's message with an ID of its own, as it would send it again.
    await served.agent.session('s1').append(...user('ticket-7-welcome', 'Welcome'))
    await until(() => textOf(session.getSnapshot().messages[1]) === 'An answer.')
    const { index, life } = session.getSnapshot().confirmed
    const idThen = (await served.agent.runtime.log.session('s1').read())[index - 1]?.id
    stop()

    // Erased, and started over by the same service: the same IDs at the same
    // indices (another answer), in a new life; then it grows on.
    await served.agent.session('s1').erase()
    await served.agent.session('s1').append(...user('ticket-7-welcome', 'Welcome'))
    await served.agent.runtime.idle()
    await served.agent.session('s1').append(...user('n2', 'And now?'))
    await served.agent.runtime.idle()
    const log = await served.agent.runtime.log.session('s1').read()
    expect(log[index - 1]?.life).not.toBe(life)
    expect(log[index - 1]?.id).toBe(idThen)

    session.subscribe(() => {})
    await expectSameAsServer(served, session)
    expect(session.getSnapshot().messages.map(textOf)).toEqual([
      'Welcome',
      'Changed.',
      'And now?',
      'Another.',
    ])
  })
})

describe('createAgentClient: a log that went back (pending commands)', () => {
  it('drops the preview of a command the lost log had stored but never decided', async () => {
    const served = await servedAgent([text('The old answer.')])
    const session = clientFor(served)
    session.subscribe(() => {})
    await session.sendMessage('Old question')
    await until(() => textOf(session.getSnapshot().messages[1]) === 'The old answer.')
    // The old process stores the Pause and dies before deciding it.
    served.agent.runtime.close()
    await session.pause({ when: 'after-turn' })
    expect(session.getSnapshot().state.inbox.paused).toBe(true)

    await served.restartWithNewLog([text('The new answer.')])
    await until(() => session.getSnapshot().confirmed.index === 0)
    await session.sendMessage('New question')
    await expectSameAsServer(served, session)
    expect(session.getSnapshot().state.inbox.paused).toBe(false)
  })
})
