import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agent } from '../../../shared/agent/index.ts'
import { agentContract, versionedEvent } from '../../../shared/ai.ts'
import { memoryEventStore } from '../../../shared/index.ts'
import { scriptedModel } from '../../../shared/testing/scripted-model.ts'
import { track } from '../../support/agent-log.ts'

// Release 2 of an app whose release 1 wrote 'plan.changed' as { plan }.
const desk = agentContract({
  name: 'desk',
  events: {
    'plan.changed': versionedEvent({
      version: 2,
      schema: z.object({ plan: z.enum(['free', 'pro']), seats: z.number() }),
      upcast: { 1: (v1: { plan: 'free' | 'pro' }) => ({ ...v1, seats: 1 }) },
    }),
  },
  reducer: {
    name: 'desk.v2',
    initialState: { seats: 0 },
    fold: (state, event) =>
      event.type === 'plan.changed' ? { seats: state.seats + event.payload.seats } : state,
  },
})

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
