import { randomBytes, randomUUID } from 'node:crypto'
import type { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  AppendConflictError,
  BatchTooLargeError,
  ClaimHeldError,
  CursorConflictError,
  contract,
  type EventStore,
  EventTooLargeError,
  eventLog,
  FencedOutError,
  InvalidEventError,
  type NewEvent,
  PartialDuplicateBatchError,
  type Reducer,
  ReservedEventIdError,
  type StoredEvent,
} from '../index.ts'
import { MAX_APPEND_BYTES, MAX_EVENT_BYTES, MAX_EVENTS_PER_APPEND } from '../log/limits.ts'
import { sleep } from '../timing/sleep.ts'

export interface EventStoreHarness {
  store: EventStore
  /** Makes the stored snapshot of a reducer undecodable, as a damaged item would be. */
  corruptSnapshot(sessionId: string, reducerName: string): Promise<void>
}

/**
 * The test functions the suite registers its tests with: vitest's own,
 * passed in so that importing `a2-aws/test` never loads a test runner.
 */
export interface ConformanceTestApi {
  describe: typeof describe
  it: typeof it
  expect: typeof expect
}

const session = (): string => `s-${randomUUID()}`
const ev = (id: string, payload: unknown = { n: id }, type = 'test.happened'): NewEvent => ({
  id,
  type,
  payload,
})
const ids = (events: StoredEvent[]): string[] => events.map((event) => event.id)
const indices = (events: StoredEvent[]): number[] => events.map((event) => event.index)

async function collect(
  iterable: AsyncIterable<StoredEvent>,
  count: number,
): Promise<StoredEvent[]> {
  const seen: StoredEvent[] = []
  for await (const event of iterable) {
    seen.push(event)
    if (seen.length === count) break
  }
  return seen
}

/** Counts how many events a reducer folded, to tell a snapshot read from a replay. */
function countingReducer(name: string): Reducer<number[]> & { folds: number } {
  const reducer = {
    name,
    initialState: [] as number[],
    folds: 0,
    fold(state: number[], event: StoredEvent): number[] {
      reducer.folds++
      return [...state, event.index]
    },
  }
  return reducer
}

/**
 * One suite, every store: what the event log promises, checked against the
 * real component (the DynamoDB store runs it on an AWS-compatible endpoint).
 * Run it on your own `EventStore` from a vitest file; `harness` is called
 * once per test.
 *
 * @example
 * import { describe, expect, it } from 'vitest'
 * import { describeEventStoreConformance } from 'a2-aws/test'
 *
 * describeEventStoreConformance('my store', () => ({ store: myStore(), corruptSnapshot }), { describe, it, expect })
 */
export function describeEventStoreConformance(
  name: string,
  harness: () => EventStoreHarness,
  { describe, it, expect }: ConformanceTestApi,
): void {
  describe(`${name}: the event store contract`, () => {
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
        expect(events.map((event) => event.timestamp)).toEqual([
          1_600_000_000_123, 1_600_000_000_123,
        ])
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
          Array.from({ length: 6 }, () =>
            store.append(s, [ev(randomUUID())], { expectedIndex: 1 }),
          ),
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

    describe('event IDs', () => {
      it('answers an exact replay with the events as first stored, writing nothing', async () => {
        const { store } = harness()
        const s = session()
        const batch = [ev(randomUUID()), ev(randomUUID())]
        const first = await store.append(s, batch)
        await store.append(s, [ev(randomUUID())])
        const again = await store.append(
          s,
          batch.map((event) => ({ ...event })),
        )
        expect(again.replayed).toBe(true)
        expect(again.events).toEqual(first.events)
        expect(await store.head(s)).toBe(3)
      })

      it('treats payloads that differ only in key order as the same content', async () => {
        const { store } = harness()
        const s = session()
        const id = randomUUID()
        await store.append(s, [ev(id, { a: 1, b: { c: 2, d: 3 } })])
        const again = await store.append(s, [ev(id, { b: { d: 3, c: 2 }, a: 1 })])
        expect(again.replayed).toBe(true)
      })

      it('prefers a replay to a conflict when the replayed append carries its old expected index', async () => {
        const { store } = harness()
        const s = session()
        const batch = [ev(randomUUID())]
        const first = await store.append(s, batch, { expectedIndex: 0 })
        await store.append(s, [ev(randomUUID())])
        const again = await store.append(s, batch, { expectedIndex: 0 })
        expect(again).toEqual({ events: first.events, replayed: true })
      })

      const rejections: [string, (s: string, earlier: NewEvent[]) => [string, NewEvent[]]][] = [
        ['other content', (s, [a]) => [s, [ev(a?.id as string, { changed: true })]]],
        ['another type', (s, [a]) => [s, [ev(a?.id as string, a?.payload, 'other.type')]]],
        ['another session', (_s, earlier) => [session(), earlier]],
        ['only part of the earlier batch', (s, [a]) => [s, [a as NewEvent]]],
        ['the earlier batch plus a new event', (s, earlier) => [s, [...earlier, ev(randomUUID())]]],
        ['the earlier batch in another order', (s, [a, b]) => [s, [b as NewEvent, a as NewEvent]]],
        ['one earlier ID beside a new one', (s, [a]) => [s, [ev(randomUUID()), a as NewEvent]]],
      ]
      for (const [what, resubmit] of rejections) {
        it(`rejects a batch that reuses IDs with ${what} as PARTIAL_DUPLICATE_BATCH, writing nothing`, async () => {
          const { store } = harness()
          const s = session()
          const earlier = [ev(randomUUID()), ev(randomUUID())]
          await store.append(s, earlier)
          const [target, batch] = resubmit(s, earlier)
          const error = await store.append(target, batch).catch((e) => e)
          expect(error).toBeInstanceOf(PartialDuplicateBatchError)
          expect(error.code).toBe('PARTIAL_DUPLICATE_BATCH')
          expect(await store.head(s)).toBe(2)
          expect(await store.head(target)).toBe(target === s ? 2 : 0)
          // The new IDs of the refused batch were not claimed.
          const fresh = batch.filter((event) => !earlier.some((old) => old.id === event.id))
          if (fresh.length > 0) {
            const later = await store.append(s, fresh)
            expect(later.replayed).toBe(false)
          }
        })
      }

      it('appends without ID guards (guardIds: false) only at an expected index, where a repeat conflicts instead of writing twice', async () => {
        const { store } = harness()
        const s = session()
        await store.append(s, [ev(randomUUID())])
        const progress = ev(randomUUID())
        const refused = await store.append(s, [progress], { guardIds: false }).catch((e) => e)
        expect(refused).toMatchObject({ code: 'INVALID_APPEND' })
        expect(await store.head(s)).toBe(1)
        const first = await store.append(s, [progress], { expectedIndex: 1, guardIds: false })
        expect(first.replayed).toBe(false)
        expect(indices(first.events)).toEqual([2])
        // Sent again after an unknown outcome: the index it expected is taken.
        const again = await store
          .append(s, [progress], { expectedIndex: 1, guardIds: false })
          .catch((e) => e)
        expect(again).toBeInstanceOf(AppendConflictError)
        expect(again).toMatchObject({ expectedIndex: 1, actualIndex: 2 })
        expect(ids(await store.read(s))).toEqual([expect.any(String), progress.id])
      })

      it('still honours a fence on an unguarded append', async () => {
        const { store } = harness()
        const s = session()
        const claim = await store.claim(s, 'gen:u', { ttlMs: 60_000 })
        await store.revokeClaim(s, 'gen:u')
        const late = await store
          .append(s, [ev(randomUUID())], {
            expectedIndex: 0,
            guardIds: false,
            fence: { claim: 'gen:u', attempt: claim.attempt },
          })
          .catch((e) => e)
        expect(late).toBeInstanceOf(FencedOutError)
        expect(await store.head(s)).toBe(0)
      })

      it('rejects a batch that repeats an ID within itself', async () => {
        const { store } = harness()
        const s = session()
        const id = randomUUID()
        await expect(store.append(s, [ev(id), ev(id)])).rejects.toBeInstanceOf(
          PartialDuplicateBatchError,
        )
        expect(await store.head(s)).toBe(0)
      })
    })

    describe('size', () => {
      it('compresses a large compressible payload and returns it intact', async () => {
        const { store } = harness()
        const s = session()
        const text = 'The quick brown fox jumps over the lazy dog. '.repeat(20_000) // ~900 KB
        const { events } = await store.append(s, [ev(randomUUID(), { text })])
        expect(events[0]?.payload).toEqual({ text })
        const [read] = await store.read(s)
        expect(read?.payload).toEqual({ text })
      })

      it('refuses an event still too large after compression, naming the limit, and writes nothing', async () => {
        const { store } = harness()
        const s = session()
        const big = randomBytes(420 * 1024).toString('base64') // 560 KB that gzip only brings to ~425 KB
        const error = await store
          .append(s, [ev(randomUUID()), ev(randomUUID(), { big })])
          .catch((e) => e)
        expect(error).toBeInstanceOf(EventTooLargeError)
        expect(error).toMatchObject({ code: 'EVENT_TOO_LARGE', limitBytes: MAX_EVENT_BYTES })
        expect(error.message).toContain(String(MAX_EVENT_BYTES))
        expect(await store.head(s)).toBe(0)
      })

      it('refuses a batch beyond one transaction, by count or by bytes', async () => {
        const { store } = harness()
        const s = session()
        const many = Array.from({ length: MAX_EVENTS_PER_APPEND + 1 }, () => ev(randomUUID()))
        await expect(store.append(s, many)).rejects.toBeInstanceOf(BatchTooLargeError)
        const heavy = Array.from({ length: 16 }, () =>
          ev(randomUUID(), { big: randomBytes(240 * 1024).toString('base64') }),
        )
        await expect(store.append(s, heavy)).rejects.toMatchObject({ code: 'BATCH_TOO_LARGE' })
        expect(await store.head(s)).toBe(0)
        const most = many.slice(0, MAX_EVENTS_PER_APPEND)
        expect((await store.append(s, most)).events).toHaveLength(MAX_EVENTS_PER_APPEND)
      })

      it('gives every store the same answer to a batch over the append limit: BATCH_TOO_LARGE, naming the limit, writing nothing', async () => {
        const { store } = harness()
        const s = session()
        // 12 events of random data as base64 (~330 KB each, gzip keeps ~75%):
        // each fits an item, and together they make a 4 MB request.
        const poorlyCompressible = Array.from({ length: 12 }, () =>
          ev(randomUUID(), { big: randomBytes(247_000).toString('base64') }),
        )
        const error = await store.append(s, poorlyCompressible).catch((e) => e)
        expect(error).toBeInstanceOf(BatchTooLargeError)
        expect(error).toMatchObject({ code: 'BATCH_TOO_LARGE', limitBytes: MAX_APPEND_BYTES })
        expect(error.message).toContain(String(MAX_APPEND_BYTES))
        expect(await store.head(s)).toBe(0)
      })
    })

    describe('read and tail', () => {
      it('reads a range after an index, in order, with a limit', async () => {
        const { store } = harness()
        const s = session()
        for (let i = 0; i < 5; i++) await store.append(s, [ev(randomUUID()), ev(randomUUID())])
        expect(indices(await store.read(s, { after: 6 }))).toEqual([7, 8, 9, 10])
        expect(indices(await store.read(s, { after: 2, limit: 3 }))).toEqual([3, 4, 5])
        expect(await store.read(s, { after: 10 })).toEqual([])
        expect(await store.read(session())).toEqual([])
      })

      it('tails from an index: earlier events first, then events appended after it started', async () => {
        const { store } = harness()
        const s = session()
        await store.append(
          s,
          [ev('t-1'), ev('t-2'), ev('t-3')].map((e) => ({ ...e, id: `${s}-${e.id}` })),
        )
        const controller = new AbortController()
        const seen = collect(store.tail(s, { after: 1, signal: controller.signal }), 4)
        await sleep(60)
        await store.append(s, [ev(`${s}-t-4`)])
        await sleep(60)
        await store.append(s, [ev(`${s}-t-5`)])
        const events = await seen
        controller.abort()
        expect(indices(events)).toEqual([2, 3, 4, 5])
      })

      it('ends a tail when its signal aborts', async () => {
        const { store } = harness()
        const s = session()
        const controller = new AbortController()
        const seen: StoredEvent[] = []
        const done = (async () => {
          for await (const event of store.tail(s, { signal: controller.signal })) seen.push(event)
        })()
        await store.append(s, [ev(randomUUID())])
        // A polling tail sees it on its rhythm (the DynamoDB store's: 250 ms).
        for (let waited = 0; seen.length === 0 && waited < 5_000; waited += 20) await sleep(20)
        controller.abort()
        await done
        expect(indices(seen)).toEqual([1])
      })
    })

    describe('state and snapshots', () => {
      it('folds a reducer over the log and reports the index it folded to', async () => {
        const { store } = harness()
        const log = eventLog({ store })
        const s = log.session(session())
        await s.append([ev(randomUUID()), ev(randomUUID()), ev(randomUUID())])
        const reducer = countingReducer(`count-${randomUUID()}`)
        expect(await s.state(reducer)).toEqual({ state: [1, 2, 3], index: 3 })
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
        expect(await s.state(reducer)).toEqual({ state: [1, 2, 3], index: 3 })
        expect(reducer.folds).toBe(3)
      })

      it('rebuilds state when a snapshot claims an index the log does not reach', async () => {
        const { store } = harness()
        const sessionId = session()
        const s = eventLog({ store }).session(sessionId)
        await s.append([ev(randomUUID())])
        const reducer = countingReducer(`count-${randomUUID()}`)
        await store.writeSnapshot(sessionId, reducer.name, { index: 40, state: [99] })
        expect(await s.state(reducer)).toEqual({ state: [1], index: 1 })
      })

      it('keeps the newer of two snapshots', async () => {
        const { store } = harness()
        const s = session()
        await store.append(
          s,
          Array.from({ length: 7 }, () => ev(randomUUID())),
        )
        await store.writeSnapshot(s, 'r', { index: 5, state: { v: 5 } })
        await store.writeSnapshot(s, 'r', { index: 3, state: { v: 3 } })
        expect(await store.readSnapshot(s, 'r')).toEqual({ index: 5, state: { v: 5 } })
        await store.writeSnapshot(s, 'r', { index: 7, state: { v: 7 } })
        expect(await store.readSnapshot(s, 'r')).toEqual({ index: 7, state: { v: 7 } })
        expect(await store.readSnapshot(s, 'other')).toBeUndefined()
      })

      it('stores no snapshot the log does not reach: none past its end, none for an empty or erased session', async () => {
        const { store } = harness()
        const s = session()
        await store.writeSnapshot(s, 'r', { index: 1, state: 'before any event' })
        expect(await store.readSnapshot(s, 'r')).toBeUndefined()
        await store.append(s, [ev(randomUUID()), ev(randomUUID())])
        await store.writeSnapshot(s, 'r', { index: 3, state: 'past the end' })
        expect(await store.readSnapshot(s, 'r')).toBeUndefined()
        await store.writeSnapshot(s, 'r', { index: 2, state: 'at the end' })
        expect(await store.readSnapshot(s, 'r')).toEqual({ index: 2, state: 'at the end' })

        await store.erase(s)
        // A fold that read the log before the erase writes its snapshot after it.
        await store.writeSnapshot(s, 'r', { index: 2, state: 'the erased state' })
        expect(await store.readSnapshot(s, 'r')).toBeUndefined()
        expect((await store.erase(s)).snapshots).toBe(0)
      })
    })

    describe('handler cursors', () => {
      it('moves a cursor together with the events a handler commits', async () => {
        const { store } = harness()
        const s = session()
        expect(await store.readCursor(s, 'admission')).toBe(0)
        await store.append(s, [ev(randomUUID()), ev(randomUUID())])
        await store.append(s, [ev(randomUUID())], { cursor: { name: 'admission', from: 0, to: 2 } })
        expect(await store.readCursor(s, 'admission')).toBe(2)
        expect(await store.readCursor(s, 'tools')).toBe(0)
        expect(await store.head(s)).toBe(3)
      })

      it('moves a cursor alone when a handler has nothing to write', async () => {
        const { store } = harness()
        const s = session()
        await store.append(s, [ev(randomUUID())])
        const result = await store.append(s, [], { cursor: { name: 'admission', from: 0, to: 1 } })
        expect(result.events).toEqual([])
        expect(await store.readCursor(s, 'admission')).toBe(1)
        expect(await store.head(s)).toBe(1)
      })

      it('refuses a commit from a cursor position that moved, writing nothing', async () => {
        const { store } = harness()
        const s = session()
        await store.append(s, [ev(randomUUID())], { cursor: { name: 'admission', from: 0, to: 1 } })
        const error = await store
          .append(s, [ev(randomUUID())], { cursor: { name: 'admission', from: 0, to: 1 } })
          .catch((e) => e)
        expect(error).toBeInstanceOf(CursorConflictError)
        expect(error).toMatchObject({ code: 'CURSOR_CONFLICT', expected: 0, actual: 1 })
        expect(await store.head(s)).toBe(1)
      })

      it('lets one of two workers committing from the same position win', async () => {
        const { store } = harness()
        const s = session()
        const attempts = await Promise.allSettled(
          [1, 2, 3].map(() =>
            store.append(s, [ev(randomUUID())], { cursor: { name: 'admission', from: 0, to: 5 } }),
          ),
        )
        expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1)
        expect(await store.head(s)).toBe(1)
      })
    })

    describe('claims and fencing', () => {
      const ttl = { ttlMs: 60_000 }

      it('gives a free claim to its first taker as attempt 1, and refuses others while it is held', async () => {
        const { store } = harness()
        const s = session()
        const before = Date.now()
        const claim = await store.claim(s, 'gen:1', ttl)
        expect(claim).toMatchObject({ key: 'gen:1', attempt: 1 })
        expect(claim.expiresAt).toBeGreaterThanOrEqual(before + 60_000 - 1000)
        const error = await store.claim(s, 'gen:1', ttl).catch((e) => e)
        expect(error).toBeInstanceOf(ClaimHeldError)
        expect(error).toMatchObject({ code: 'CLAIM_HELD', attempt: 1, expiresAt: claim.expiresAt })
        expect(await store.readClaim(s, 'gen:1')).toEqual(claim)
        expect(await store.readClaim(s, 'gen:2')).toBeUndefined()
      })

      it('lets exactly one of several concurrent takers have a free claim', async () => {
        const { store } = harness()
        const s = session()
        const takers = await Promise.allSettled(
          [1, 2, 3, 4].map(() => store.claim(s, 'tool:x', ttl)),
        )
        expect(takers.filter((t) => t.status === 'fulfilled')).toHaveLength(1)
      })

      it('hands an expired claim to a new attempt, which fences out the old one', async () => {
        const { store } = harness()
        const s = session()
        const first = await store.claim(s, 'gen:1', { ttlMs: 20 })
        await store.append(s, [ev(randomUUID())], {
          fence: { claim: 'gen:1', attempt: first.attempt },
        })
        await sleep(40)
        const second = await store.claim(s, 'gen:1', ttl)
        expect(second.attempt).toBe(2)
        const late = await store
          .append(s, [ev(randomUUID())], { fence: { claim: 'gen:1', attempt: 1 } })
          .catch((e) => e)
        expect(late).toBeInstanceOf(FencedOutError)
        expect(late).toMatchObject({ code: 'FENCED_OUT', attempt: 1 })
        await expect(store.renewClaim(s, first, ttl)).rejects.toBeInstanceOf(FencedOutError)
        expect(await store.head(s)).toBe(1)
        await store.append(s, [ev(randomUUID())], { fence: { claim: 'gen:1', attempt: 2 } })
        expect(await store.head(s)).toBe(2)
      })

      it('tells the next taker how the previous attempt ended: expired, released or revoked', async () => {
        const { store } = harness()
        const s = session()
        expect((await store.claim(s, 'w', { ttlMs: 10 })).previous).toBeUndefined()
        await sleep(25)
        const second = await store.claim(s, 'w', ttl)
        expect(second).toMatchObject({ attempt: 2, previous: 'expired' })
        await store.releaseClaim(s, second)
        const third = await store.claim(s, 'w', ttl)
        expect(third).toMatchObject({ attempt: 3, previous: 'released' })
        await store.releaseClaim(s, second) // superseded: no effect
        await expect(store.claim(s, 'w', ttl)).rejects.toBeInstanceOf(ClaimHeldError)
        await store.revokeClaim(s, 'w')
        await expect(store.renewClaim(s, third, ttl)).rejects.toBeInstanceOf(FencedOutError)
        await expect(
          store.append(s, [ev(randomUUID())], { fence: { claim: 'w', attempt: third.attempt } }),
        ).rejects.toBeInstanceOf(FencedOutError)
        expect(await store.claim(s, 'w', ttl)).toMatchObject({ attempt: 5, previous: 'revoked' })
      })

      it('renews a held claim', async () => {
        const { store } = harness()
        const s = session()
        const claim = await store.claim(s, 'gen:1', { ttlMs: 1_000 })
        const renewed = await store.renewClaim(s, claim, ttl)
        expect(renewed.attempt).toBe(1)
        expect(renewed.expiresAt).toBeGreaterThan(claim.expiresAt)
        expect(await store.readClaim(s, 'gen:1')).toEqual(renewed)
      })

      it('refuses writes fenced on a claim nobody took', async () => {
        const { store } = harness()
        const s = session()
        await expect(
          store.append(s, [ev(randomUUID())], { fence: { claim: 'never', attempt: 1 } }),
        ).rejects.toBeInstanceOf(FencedOutError)
        expect(await store.head(s)).toBe(0)
      })
    })

    describe('erase', () => {
      /** A session with every item kind: guarded and unguarded events, a snapshot, a cursor, claims. */
      async function fullSession(store: EventStore, s: string, prefix: string): Promise<void> {
        await store.append(s, [ev(`${prefix}-1`), ev(`${prefix}-2`)])
        await store.append(s, [ev(`${prefix}-3`)], {
          cursor: { name: 'admission', from: 0, to: 2 },
        })
        await store.append(s, [ev(`${prefix}-p`)], { expectedIndex: 3, guardIds: false })
        await store.writeSnapshot(s, 'counter', { index: 2, state: { n: 2 } })
        await store.writeSnapshot(s, 'other', { index: 3, state: [1, 2, 3] })
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
        await store.append(kept, keptBatch)
        await store.writeSnapshot(kept, 'counter', { index: 1, state: 1 })
        // An unguarded event may carry an ID another session's guard holds.
        await store.append(erased, [ev(shared, { elsewhere: true })], {
          expectedIndex: 0,
          guardIds: false,
        })
        expect(await store.erase(erased)).toMatchObject({ events: 1, idGuards: 0 })
        expect(indices(await store.read(kept))).toEqual([1, 2])
        expect(await store.readSnapshot(kept, 'counter')).toEqual({ index: 1, state: 1 })
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
        expect(await log.session(s).state(reducer)).toEqual({
          state: ['new', 'new', 'new', 'new'],
          index: 4,
        })
      })
    })

    describe('the log over this store', () => {
      const notes = contract({
        name: 'notes',
        events: {
          'note.added': z.object({
            text: z.string().min(1),
            tags: z.array(z.string()).default([]),
          }),
        },
      })

      it('rejects an invalid payload with the event type and the zod issue path, writing nothing', async () => {
        const { store } = harness()
        const s = eventLog({ store, contract: notes }).session(session())
        const error = await s
          .append([
            { id: randomUUID(), type: 'note.added', payload: { text: 'ok' } },
            { id: randomUUID(), type: 'note.added', payload: { text: 'x', tags: ['a', 7] } },
          ])
          .catch((e) => e)
        expect(error).toBeInstanceOf(InvalidEventError)
        expect(error).toMatchObject({
          code: 'INVALID_EVENT',
          eventType: 'note.added',
          path: ['tags', 1],
        })
        expect(error.message).toContain('note.added')
        expect(error.message).toContain('tags.1')
        expect(await s.head()).toBe(0)
      })

      it('stores the parsed payload of a declared type and passes undeclared types through', async () => {
        const { store } = harness()
        const s = eventLog({ store, contract: notes }).session(session())
        const stored = await s.append([
          { type: 'note.added', payload: { text: 'hi' } },
          { type: 'other.thing', payload: { anything: 1 } },
        ])
        expect(stored[0]?.payload).toEqual({ text: 'hi', tags: [] })
        expect(stored[1]?.payload).toEqual({ anything: 1 })
        expect(stored.every((event) => event.id.length > 0)).toBe(true)
      })

      it('refuses session and event IDs that pass for others or have no UTF-8 form, as it refuses other invalid IDs', async () => {
        const { store } = harness()
        const log = eventLog({ store })
        // A bidi override, a zero-width space, a line separator, a lone surrogate.
        for (const hidden of ['\u202E', '\u200B', '\u2028', '\uDC00']) {
          expect(() => log.session(`${session()}${hidden}`)).toThrow(
            expect.objectContaining({ code: 'INVALID_SESSION_ID' }),
          )
          const s = session()
          await expect(
            log.session(s).append([ev(`${randomUUID()}${hidden}`)]),
          ).rejects.toMatchObject({ code: 'INVALID_EVENT', path: ['id'] })
          expect(await store.head(s)).toBe(0)
        }
      })

      it('refuses caller IDs with the reserved a2. prefix, and lets A2 itself use them', async () => {
        const { store } = harness()
        const s = eventLog({ store }).session(session())
        await expect(s.append([ev('a2.ai:forged')])).rejects.toBeInstanceOf(ReservedEventIdError)
        expect(await s.head()).toBe(0)
        const id = `a2.ai:${randomUUID()}`
        expect(await s.append([ev(id)], { author: 'a2' })).toHaveLength(1)
      })
    })
  })
}
