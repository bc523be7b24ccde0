import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { contract, eventLog, UpcastError, versionedEvent } from '../../../shared/index.ts'
import { memoryEventStore } from '../../../shared/stores/memory/memory-event-store.ts'

// The app's first release declared `plan.changed` as { plan }; the second
// as { plan, seats }, with an upcaster from the first.
const v1 = contract({
  name: 'desk',
  events: { 'plan.changed': z.object({ plan: z.string() }) },
})
const v2 = contract({
  name: 'desk',
  events: {
    'plan.changed': versionedEvent({
      version: 2,
      schema: z.object({ plan: z.string(), seats: z.number() }),
      upcast: { 1: (old: { plan: string }) => ({ ...old, seats: 1 }) },
    }),
  },
  reducer: {
    name: 'desk.v2',
    initialState: { seats: 0 },
    fold: (state, event) =>
      event.type === 'plan.changed' ? { seats: state.seats + event.payload.seats } : state,
  },
})

describe('the log upcasts older events where it hands them out, never rewriting them', () => {
  it('read, tail and state see version-1 events (raw store appends) as version 2; the store keeps version 1', async () => {
    const store = memoryEventStore()
    await store.append('s', [
      { id: 'a', type: 'plan.changed', payload: { plan: 'free' } },
      { id: 'b', type: 'plan.changed', payload: { plan: 'pro' } },
    ])
    const session = eventLog({ store, contract: v2 }).session('s')
    const read = await session.read()
    expect(read.map(({ payload, version }) => ({ payload, version }))).toEqual([
      { payload: { plan: 'free', seats: 1 }, version: 2 },
      { payload: { plan: 'pro', seats: 1 }, version: 2 },
    ])
    const controller = new AbortController()
    const tailed = []
    for await (const event of session.tail({ signal: controller.signal })) {
      tailed.push(event)
      if (tailed.length === 2) controller.abort()
    }
    expect(tailed).toEqual(read)
    const reducer = v2.reducer
    if (!reducer) throw new Error('v2 has a reducer')
    expect((await session.state(reducer)).state).toEqual({ seats: 2 })
    const raw = await store.read('s')
    expect(raw.map(({ payload, version }) => ({ payload, version }))).toEqual([
      { payload: { plan: 'free' }, version: undefined },
      { payload: { plan: 'pro' }, version: undefined },
    ])
  })

  it('stamps appends of a versioned type with its current version, and leaves plain types unstamped', async () => {
    const store = memoryEventStore()
    const session = eventLog({ store, contract: v2 }).session('s')
    const [appended] = await session.append([
      { type: 'plan.changed', payload: { plan: 'pro', seats: 3 } },
    ])
    expect(appended?.version).toBe(2)
    expect((await store.read('s'))[0]?.version).toBe(2)
    const [plain] = await eventLog({ store, contract: v1 })
      .session('t')
      .append([{ type: 'plan.changed', payload: { plan: 'pro' } }])
    expect(plain).not.toHaveProperty('version')
  })

  it('an old reader (version 1 code) hands a version-2 event on as written', async () => {
    const store = memoryEventStore()
    await eventLog({ store, contract: v2 })
      .session('s')
      .append([{ type: 'plan.changed', payload: { plan: 'pro', seats: 3 } }])
    const old = eventLog({ store, contract: v1 }).session('s')
    const warn = console.warn
    console.warn = () => {}
    try {
      expect((await old.read())[0]).toMatchObject({
        payload: { plan: 'pro', seats: 3 },
        version: 2,
      })
    } finally {
      console.warn = warn
    }
  })

  it('refuses to fold an event whose upcast fails the current schema, with UpcastError; the log stays as it is', async () => {
    const store = memoryEventStore()
    await store.append('s', [{ id: 'a', type: 'plan.changed', payload: { plan: 7 } }])
    const session = eventLog({ store, contract: v2 }).session('s')
    const reducer = v2.reducer
    if (!reducer) throw new Error('v2 has a reducer')
    await expect(session.state(reducer)).rejects.toBeInstanceOf(UpcastError)
    await expect(session.read()).rejects.toMatchObject({ code: 'UPCAST_FAILED', index: 1 })
    expect((await store.read('s'))[0]?.payload).toEqual({ plan: 7 })
  })

  it('does not trust a snapshot stored under another reducer name: it refolds the log', async () => {
    const store = memoryEventStore()
    await store.append('s', [{ id: 'a', type: 'plan.changed', payload: { plan: 'free' } }])
    // Another reducer version's snapshot at the log's head, with a state this one would not fold.
    await store.writeSnapshot('s', 'desk.v1', {
      state: { seats: 99 },
      index: 1,
      life: (await store.read('s'))[0]?.life ?? '',
    })
    const reducer = v2.reducer
    if (!reducer) throw new Error('v2 has a reducer')
    const folded = await eventLog({ store, contract: v2 }).session('s').state(reducer)
    expect(folded).toMatchObject({ state: { seats: 1 }, index: 1 })
    // The same snapshot under this reducer's own name is used.
    await store.writeSnapshot('s', 'desk.v2', {
      state: { seats: 99 },
      index: 1,
      life: folded.life ?? '',
    })
    expect((await eventLog({ store, contract: v2 }).session('s').state(reducer)).state).toEqual({
      seats: 99,
    })
  })
})
