import { describe, expect, it } from 'vitest'
import { agent } from '../../../shared/agent/index.ts'
import { memoryEventStore } from '../../../shared/index.ts'
import { scriptedModel } from '../../../shared/testing/scripted-model.ts'
import { track } from '../../support/agent-log.ts'
import { deskRelease2 } from '../../support/desk-releases.ts'

// Release 2 of an app whose release 1 wrote 'plan.changed' as { plan }.
const desk = deskRelease2

describe("an agent over a log its contract's older release wrote", () => {
  it('folds its state and runs its handlers on current payloads, stamps new events, and leaves the log as written', async () => {
    const store = memoryEventStore()
    await store.append('s', [{ id: 'r1', type: 'plan.changed', payload: { plan: 'pro' } }])
    const handled: unknown[] = []
    const a = track(
      agent({
        contract: desk,
        store,
        model: scriptedModel([]).model,
        handlers: { 'plan.changed': ({ event }) => void handled.push(event.payload) },
      }),
    )
    await a.session('s').append({ type: 'plan.changed', payload: { plan: 'free', seats: 4 } })
    await a.runtime.idle()
    expect((await a.session('s').state()).state.seats).toBe(5)
    expect(handled).toEqual([
      { plan: 'pro', seats: 1 },
      { plan: 'free', seats: 4 },
    ])
    const stored = await store.read('s')
    expect(stored.map(({ payload, version }) => ({ payload, version }))).toEqual([
      { payload: { plan: 'pro' }, version: undefined },
      { payload: { plan: 'free', seats: 4 }, version: 2 },
    ])
  })
})
