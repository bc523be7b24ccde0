import { randomUUID } from 'node:crypto'
import { AppendConflictError } from '../../index.ts'
import {
  type ConformanceTestApi,
  type EventStoreHarness,
  ev,
  ids,
  indices,
  session,
} from './conformance-kit.ts'

/** Appends: gapless indices per session, the expected index, concurrent appenders. */
export function describeAppend(
  harness: () => EventStoreHarness,
  { describe, it, expect }: ConformanceTestApi,
): void {
  describe('append', () => {
    it('stores events with the session ID, gapless indices from 1 and a timestamp', async () => {
      const { store } = harness()
      const s = session()
      const before = Date.now()
      const first = await store.append(s, [ev(randomUUID()), ev(randomUUID())])
      const second = await store.append(s, [ev(randomUUID())])
      expect(first.replayed).toBe(false)
      expect(indices(first.events)).toEqual([1, 2])
      expect(indices(second.events)).toEqual([3])
      const all = await store.read(s)
      expect(indices(all)).toEqual([1, 2, 3])
      for (const event of all) {
        expect(event.sessionId).toBe(s)
        expect(event.timestamp).toBeGreaterThanOrEqual(before - 1000)
        expect(event.timestamp).toBeLessThanOrEqual(Date.now() + 1000)
      }
      expect(await store.head(s)).toBe(3)
    })

    it('stores the timestamp an append passes instead of its clock (imports keep their times)', async () => {
      const { store } = harness()
      const s = session()
      const { events } = await store.append(s, [ev(randomUUID()), ev(randomUUID())], {
        timestamp: 1_600_000_000_123,
      })
      expect(events.map((event) => event.timestamp)).toEqual([1_600_000_000_123, 1_600_000_000_123])
      expect((await store.read(s)).map((event) => event.timestamp)).toEqual([
        1_600_000_000_123, 1_600_000_000_123,
      ])
    })

    it('keeps each session its own log', async () => {
      const { store } = harness()
      const [a, b] = [session(), session()]
      await store.append(a, [ev(randomUUID()), ev(randomUUID())])
      const inB = await store.append(b, [ev(randomUUID())])
      expect(indices(inB.events)).toEqual([1])
      expect(await store.head(a)).toBe(2)
      expect(await store.head(b)).toBe(1)
      expect(await store.head(session())).toBe(0)
    })

    it('returns what it stored: type, payload and ID as submitted', async () => {
      const { store } = harness()
      const s = session()
      const payload = { text: 'héllo ✓', nested: { list: [1, 2, { deep: true }] }, none: null }
      const { events } = await store.append(s, [{ id: 'e-1', type: 'note.added', payload }])
      expect(events[0]).toMatchObject({ id: 'e-1', type: 'note.added', payload, index: 1 })
      expect((await store.read(s))[0]).toEqual(events[0])
    })

    it("keeps an event's schema version: returned and read back as stored; none for version 1", async () => {
      const { store } = harness()
      const s = session()
      const { events } = await store.append(s, [
        { ...ev('v-1'), version: 3 },
        { ...ev('v-2'), version: 1 },
        ev('v-3'),
      ])
      expect(events.map((event) => event.version)).toEqual([3, undefined, undefined])
      expect(events[1]).not.toHaveProperty('version')
      const read = await store.read(s)
      expect(read).toEqual(events)
      expect(read.map((event) => Object.hasOwn(event, 'version'))).toEqual([true, false, false])
    })

    it('appends at the expected index, and refuses a mismatch with APPEND_CONFLICT writing nothing', async () => {
      const { store } = harness()
      const s = session()
      await store.append(s, [ev(randomUUID())], { expectedIndex: 0 })
      await store.append(s, [ev(randomUUID())], { expectedIndex: 1 })
      for (const expectedIndex of [0, 1, 5]) {
        const error = await store.append(s, [ev(randomUUID())], { expectedIndex }).catch((e) => e)
        expect(error).toBeInstanceOf(AppendConflictError)
        expect(error).toMatchObject({ code: 'APPEND_CONFLICT', expectedIndex, actualIndex: 2 })
      }
      expect(indices(await store.read(s))).toEqual([1, 2])
    })

    it('lets concurrent appenders on one session each win distinct indices, with no gaps and nothing lost', async () => {
      const { store } = harness()
      const s = session()
      const batches = Array.from({ length: 12 }, (_, i) =>
        Array.from({ length: (i % 3) + 1 }, () => ev(randomUUID())),
      )
      const results = await Promise.all(batches.map((batch) => store.append(s, batch)))
      const all = await store.read(s)
      const total = batches.flat().length
      expect(indices(all)).toEqual(Array.from({ length: total }, (_, i) => i + 1))
      expect(new Set(ids(all))).toEqual(new Set(batches.flat().map((event) => event.id)))
      for (const [i, result] of results.entries()) {
        // Each batch is contiguous and in its own order.
        expect(ids(result.events)).toEqual(batches[i]?.map((event) => event.id))
        const first = result.events[0]?.index ?? 0
        expect(indices(result.events)).toEqual(result.events.map((_, k) => first + k))
      }
    })

    it('queues appenders without an expected index instead of refusing them: 35 at once all land, gapless', async () => {
      const { store } = harness()
      const s = session()
      const batches = Array.from({ length: 35 }, () => [ev(randomUUID())])
      const results = await Promise.allSettled(batches.map((batch) => store.append(s, batch)))
      expect(results.filter((result) => result.status === 'rejected')).toEqual([])
      expect(indices(await store.read(s))).toEqual(Array.from({ length: 35 }, (_, i) => i + 1))
    })

    it('lets exactly one of several appenders expecting the same index win', async () => {
      const { store } = harness()
      const s = session()
      await store.append(s, [ev(randomUUID())])
      const attempts = await Promise.allSettled(
        Array.from({ length: 6 }, () => store.append(s, [ev(randomUUID())], { expectedIndex: 1 })),
      )
      const won = attempts.filter((attempt) => attempt.status === 'fulfilled')
      expect(won).toHaveLength(1)
      for (const attempt of attempts) {
        if (attempt.status === 'rejected')
          expect(attempt.reason).toBeInstanceOf(AppendConflictError)
      }
      expect(await store.head(s)).toBe(2)
    })
  })
}
