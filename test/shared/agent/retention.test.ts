import { describe, expect, it } from 'vitest'
import { agent } from '../../../shared/agent/index.ts'
import { inputs } from '../../../shared/ai.ts'
import { memoryEventStore } from '../../../shared/index.ts'
import { scriptedModel, text } from '../../../shared/testing/scripted-model.ts'
import { textOf, track, userMessage } from '../../support/agent-log.ts'

const HOUR = 3_600_000

describe('retention: idle sessions expire whole', () => {
  it('keeps a session while it is used, and expires it whole once idle for the retention period', async () => {
    let clock = 1_700_000_000_000
    const now = () => clock
    const store = memoryEventStore({ now })
    const script = scriptedModel([text('First.'), text('Second.')])
    const a = track(agent({ name: 'retained', model: script.model, store, now, retention: '1h' }))
    await a.session('s').append(...inputs.message(userMessage('m1', 'Hi')))
    await a.runtime.idle()
    await store.writeSnapshot('s', 'some-reducer', { index: 1, state: 'cached' })

    clock += 0.9 * HOUR
    await a.session('s').append(...inputs.message(userMessage('m2', 'Still there?')))
    await a.runtime.idle()
    // 1.8 hours after the first message, 0.9 after the last: still whole.
    clock += 0.9 * HOUR
    const kept = await a.session('s').state()
    expect(kept.state.messages.map((message) => textOf(message))).toEqual([
      'Hi',
      'First.',
      'Still there?',
      'Second.',
    ])

    clock += 0.2 * HOUR
    expect(await a.session('s').state()).toMatchObject({ index: 0, state: { messages: [] } })
    expect(await store.read('s')).toEqual([])
    expect(await store.readSnapshot('s', 'some-reducer')).toBeUndefined()
    // Nothing left to erase: every item kind went with it.
    expect(await store.erase('s')).toMatchObject({ events: 0, heads: 0, snapshots: 0, idGuards: 0 })
  })

  it('keeps sessions forever without it', async () => {
    let clock = 1_700_000_000_000
    const store = memoryEventStore({ now: () => clock })
    const a = track(agent({ name: 'kept', model: scriptedModel([text('Hello.')]).model, store }))
    await a.session('s').append(...inputs.message(userMessage('m1', 'Hi')))
    await a.runtime.idle()
    clock += 10_000 * HOUR
    expect((await a.session('s').state()).state.messages).toHaveLength(2)
  })

  it('refuses a retention it cannot read, at startup', () => {
    expect(() =>
      agent({ name: 'bad', model: scriptedModel([]).model, retention: 'a while' }),
    ).toThrow(/Cannot read retention "a while"/)
  })
})
