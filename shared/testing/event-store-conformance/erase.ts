import { randomUUID } from 'node:crypto'
import { type EventStore, eventLog, FencedOutError, type Reducer } from '../../index.ts'
import {
  type ConformanceTestApi,
  type EventStoreHarness,
  ev,
  indices,
  session,
} from './conformance-kit.ts'

/** Erasing a session: every item kind, idempotent, nothing of other sessions. */
export function describeErase(
  harness: () => EventStoreHarness,
  { describe, it, expect }: ConformanceTestApi,
): void {
  describe('erase', () => {
    /** A session with every item kind: guarded and unguarded events, a snapshot, a cursor, claims. */
    async function fullSession(store: EventStore, s: string, prefix: string): Promise<void> {
      const { events } = await store.append(s, [ev(`${prefix}-1`), ev(`${prefix}-2`)])
      const life = events[0]?.life as string
      await store.append(s, [ev(`${prefix}-3`)], {
        cursor: { name: 'admission', from: 0, to: 2 },
      })
      await store.append(s, [ev(`${prefix}-p`)], { expectedIndex: 3, guardIds: false })
      await store.writeSnapshot(s, 'counter', { index: 2, state: { n: 2 }, life })
      await store.writeSnapshot(s, 'other', { index: 3, state: [1, 2, 3], life })
      await store.claim(s, 'gen:1', { ttlMs: 60_000 })
    }

    it('removes a session from every item kind, with a receipt of counts per item kind', async () => {
      const { store } = harness()
      const s = session()
      const prefix = randomUUID()
      await fullSession(store, s, prefix)
      const receipt = await store.erase(s)
      expect(receipt).toEqual({
        sessionId: s,
        events: 4,
        heads: 1,
        snapshots: 2,
        cursors: 1,
        claims: 1,
        idGuards: 3,
      })
      expect(await store.read(s)).toEqual([])
      expect(await store.head(s)).toBe(0)
      expect(await store.readSnapshot(s, 'counter')).toBeUndefined()
      expect(await store.readCursor(s, 'admission')).toBe(0)
      expect(await store.readClaim(s, 'gen:1')).toBeUndefined()
      // The guards went too: the IDs are free again, and the log starts over at 1.
      const again = await store.append(s, [ev(`${prefix}-1`, { other: true })])
      expect(again.replayed).toBe(false)
      expect(again.events[0]).toMatchObject({ index: 1, payload: { other: true } })
    })

    it('is idempotent: erasing an erased or unknown session removes nothing', async () => {
      const { store } = harness()
      const s = session()
      await fullSession(store, s, randomUUID())
      await store.erase(s)
      const none = { events: 0, heads: 0, snapshots: 0, cursors: 0, claims: 0, idGuards: 0 }
      expect(await store.erase(s)).toEqual({ sessionId: s, ...none })
      const unknown = session()
      expect(await store.erase(unknown)).toEqual({ sessionId: unknown, ...none })
    })

    it("leaves other sessions alone, and never takes another session's ID guard", async () => {
      const { store } = harness()
      const [erased, kept] = [session(), session()]
      const shared = randomUUID()
      const keptBatch = [ev(shared), ev(randomUUID())]
      const { events } = await store.append(kept, keptBatch)
      const life = events[0]?.life as string
      await store.writeSnapshot(kept, 'counter', { index: 1, state: 1, life })
      // An unguarded event may carry an ID another session's guard holds.
      await store.append(erased, [ev(shared, { elsewhere: true })], {
        expectedIndex: 0,
        guardIds: false,
      })
      expect(await store.erase(erased)).toMatchObject({ events: 1, idGuards: 0 })
      expect(indices(await store.read(kept))).toEqual([1, 2])
      expect(await store.readSnapshot(kept, 'counter')).toEqual({ index: 1, state: 1, life })
      // The kept session's guard still answers a replay.
      expect((await store.append(kept, keptBatch)).replayed).toBe(true)
    })

    it('fences out an attempt that held a claim of the erased session', async () => {
      const { store } = harness()
      const s = session()
      await store.append(s, [ev(randomUUID())])
      const claim = await store.claim(s, 'gen:1', { ttlMs: 60_000 })
      await store.erase(s)
      await expect(
        store.append(s, [ev(randomUUID())], {
          fence: { claim: 'gen:1', attempt: claim.attempt },
        }),
      ).rejects.toBeInstanceOf(FencedOutError)
      await expect(store.renewClaim(s, claim, { ttlMs: 60_000 })).rejects.toBeInstanceOf(
        FencedOutError,
      )
      expect(await store.head(s)).toBe(0)
    })

    it('rebuilds no state from before the erase: its snapshots went with it', async () => {
      const { store } = harness()
      const s = session()
      const log = eventLog({ store, snapshotEvery: 2 })
      const reducer: Reducer<string[]> = {
        name: `erase-${randomUUID()}`,
        initialState: [],
        fold: (state, event) => [...state, (event.payload as { era: string }).era],
      }
      const era = (name: string) => ev(randomUUID(), { era: name })
      await log.session(s).append([era('old'), era('old'), era('old')])
      expect((await log.session(s).state(reducer)).state).toEqual(['old', 'old', 'old'])
      await store.erase(s)
      await log.session(s).append([era('new'), era('new'), era('new'), era('new')])
      expect(await log.session(s).state(reducer)).toMatchObject({
        state: ['new', 'new', 'new', 'new'],
        index: 4,
      })
    })

    it('stores no snapshot for an erased session, written after the erase by a fold that read the log before it', async () => {
      const { store } = harness()
      const s = session()
      const { events } = await store.append(s, [ev(randomUUID()), ev(randomUUID())])
      const life = events[0]?.life as string
      await store.writeSnapshot(s, 'r', { index: 2, state: 'at the end', life })
      expect(await store.readSnapshot(s, 'r')).toEqual({ index: 2, state: 'at the end', life })
      await store.erase(s)
      await store.writeSnapshot(s, 'r', { index: 2, state: 'the erased state', life })
      expect(await store.readSnapshot(s, 'r')).toBeUndefined()
      expect((await store.erase(s)).snapshots).toBe(0)
    })
  })
}
