import { randomUUID } from 'node:crypto'
import { eventLog, type StoredEvent } from '../../index.ts'
import {
  type ConformanceTestApi,
  countingReducer,
  type EventStoreHarness,
  ev,
  session,
} from './conformance-kit.ts'

/** Folded state and reducer snapshots (`corruptSnapshot` damages one). */
export function describeSnapshots(
  harness: () => EventStoreHarness,
  { describe, it, expect }: ConformanceTestApi,
): void {
  describe('state and snapshots', () => {
    it('folds a reducer over the log and reports the index it folded to', async () => {
      const { store } = harness()
      const log = eventLog({ store })
      const s = log.session(session())
      const [{ life }] = (await s.append([
        ev(randomUUID()),
        ev(randomUUID()),
        ev(randomUUID()),
      ])) as [StoredEvent]
      const reducer = countingReducer(`count-${randomUUID()}`)
      // With the life it is of: what an append that follows it names.
      expect(await s.state(reducer)).toEqual({ state: [1, 2, 3], index: 3, life })
      expect(await log.session(session()).state(reducer)).toEqual({ state: [], index: 0 })
    })

    it('reads state as the stored snapshot plus the tail after it', async () => {
      const { store } = harness()
      const log = eventLog({ store, snapshotEvery: 5 })
      const s = log.session(session())
      for (let i = 0; i < 8; i++) await s.append([ev(randomUUID())])
      const reducer = countingReducer(`count-${randomUUID()}`)
      await s.state(reducer) // folds 8 and stores a snapshot at 8
      expect(reducer.folds).toBe(8)
      await s.append([ev(randomUUID()), ev(randomUUID())])
      reducer.folds = 0
      const { state, index } = await s.state(reducer)
      expect(reducer.folds).toBe(2)
      expect(index).toBe(10)
      expect(state).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    })

    it('does not reuse a snapshot under a renamed reducer', async () => {
      const { store } = harness()
      const log = eventLog({ store, snapshotEvery: 2 })
      const s = log.session(session())
      await s.append([ev(randomUUID()), ev(randomUUID()), ev(randomUUID())])
      const name = `count-${randomUUID()}`
      await s.state(countingReducer(name))
      const renamed = countingReducer(`${name}.v2`)
      expect((await s.state(renamed)).state).toEqual([1, 2, 3])
      expect(renamed.folds).toBe(3)
    })

    it('rebuilds state from the log when the snapshot cannot be read', async () => {
      const h = harness()
      const log = eventLog({ store: h.store, snapshotEvery: 2 })
      const sessionId = session()
      const s = log.session(sessionId)
      await s.append([ev(randomUUID()), ev(randomUUID()), ev(randomUUID())])
      const reducer = countingReducer(`count-${randomUUID()}`)
      await s.state(reducer)
      await h.corruptSnapshot(sessionId, reducer.name)
      reducer.folds = 0
      expect(await s.state(reducer)).toMatchObject({ state: [1, 2, 3], index: 3 })
      expect(reducer.folds).toBe(3)
    })

    it('rebuilds state when a snapshot claims an index the log does not reach', async () => {
      const { store } = harness()
      const sessionId = session()
      const s = eventLog({ store }).session(sessionId)
      const [{ life }] = (await s.append([ev(randomUUID())])) as [StoredEvent]
      const reducer = countingReducer(`count-${randomUUID()}`)
      await store.writeSnapshot(sessionId, reducer.name, { index: 40, state: [99], life })
      expect(await s.state(reducer)).toEqual({ state: [1], index: 1, life })
    })

    it("stores no snapshot of another life than the session's", async () => {
      const { store } = harness()
      const sessionId = session()
      await store.append(sessionId, [ev(randomUUID()), ev(randomUUID())])
      await store.writeSnapshot(sessionId, 'r', { index: 2, state: [7, 7], life: 'no such life' })
      expect(await store.readSnapshot(sessionId, 'r')).toBeUndefined()
    })

    it('keeps the newer of two snapshots', async () => {
      const { store } = harness()
      const s = session()
      const { events } = await store.append(
        s,
        Array.from({ length: 7 }, () => ev(randomUUID())),
      )
      const life = events[0]?.life as string
      await store.writeSnapshot(s, 'r', { index: 5, state: { v: 5 }, life })
      await store.writeSnapshot(s, 'r', { index: 3, state: { v: 3 }, life })
      expect(await store.readSnapshot(s, 'r')).toEqual({ index: 5, state: { v: 5 }, life })
      await store.writeSnapshot(s, 'r', { index: 7, state: { v: 7 }, life })
      expect(await store.readSnapshot(s, 'r')).toEqual({ index: 7, state: { v: 7 }, life })
      expect(await store.readSnapshot(s, 'other')).toBeUndefined()
    })

    it('stores no snapshot the log does not reach: none past its end, none for an empty session', async () => {
      const { store } = harness()
      const s = session()
      await store.writeSnapshot(s, 'r', { index: 1, state: 'before any event' })
      expect(await store.readSnapshot(s, 'r')).toBeUndefined()
      const { events } = await store.append(s, [ev(randomUUID()), ev(randomUUID())])
      const life = events[0]?.life as string
      await store.writeSnapshot(s, 'r', { index: 3, state: 'past the end', life })
      expect(await store.readSnapshot(s, 'r')).toBeUndefined()
      await store.writeSnapshot(s, 'r', { index: 2, state: 'at the end', life })
      expect(await store.readSnapshot(s, 'r')).toEqual({ index: 2, state: 'at the end', life })
    })
  })
}
