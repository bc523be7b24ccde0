import { randomUUID } from 'node:crypto'
import { AppendConflictError, type NewEvent, PartialDuplicateBatchError } from '../../index.ts'
import {
  type ConformanceTestApi,
  type EventStoreHarness,
  ev,
  ids,
  indices,
  session,
} from './conformance-kit.ts'

/** What the event-ID tests share. */
interface EventIdsKit {
  harness: () => EventStoreHarness
  it: ConformanceTestApi['it']
  expect: ConformanceTestApi['expect']
}

/** An exact replay (same IDs, same content) answers with the stored events. */
function itAnswersReplays({ harness, it, expect }: EventIdsKit): void {
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

  it('answers a replay of a versioned event as one: the version is part of the content, version 1 the same as none', async () => {
    const { store } = harness()
    const s = session()
    const batch = [
      { ...ev(randomUUID()), version: 3 },
      { ...ev(randomUUID()), version: 1 },
    ]
    const first = await store.append(s, batch)
    const again = await store.append(s, [batch[0] as NewEvent, ev(batch[1]?.id as string)])
    expect(again.replayed).toBe(true)
    expect(again.events).toEqual(first.events)
    expect(await store.head(s)).toBe(2)
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
}

/** Any other reuse of stored IDs is refused, claiming none of its new IDs. */
function itRejectsReusedIds({ harness, it, expect }: EventIdsKit): void {
  const rejections: [string, (s: string, earlier: NewEvent[]) => [string, NewEvent[]]][] = [
    ['other content', (s, [a]) => [s, [ev(a?.id as string, { changed: true })]]],
    ['another type', (s, [a]) => [s, [ev(a?.id as string, a?.payload, 'other.type')]]],
    [
      'another schema version',
      (s, [a, b]) => [s, [{ ...(a as NewEvent), version: 2 }, b as NewEvent]],
    ],
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
}

/** Appends without ID guards (`guardIds: false`), at an expected index only. */
function itAppendsUnguarded({ harness, it, expect }: EventIdsKit): void {
  it('appends without ID guards (guardIds: false) only at an expected index, where a repeat is answered as a replay, written once', async () => {
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
    // Sent again after an unknown outcome: its own events are at its
    // index, by their IDs (nobody else's), so it is a replay, written once.
    const again = await store.append(s, [progress], { expectedIndex: 1, guardIds: false })
    expect(again.replayed).toBe(true)
    expect(again.events).toEqual(first.events)
    // Sent again once the log has moved on past it: still a replay.
    await store.append(s, [ev(randomUUID())])
    const later = await store.append(s, [progress], { expectedIndex: 1, guardIds: false })
    expect(later).toMatchObject({ replayed: true, events: first.events })
    // Other events at that index are a conflict.
    const other = await store
      .append(s, [ev(randomUUID())], { expectedIndex: 1, guardIds: false })
      .catch((e) => e)
    expect(other).toBeInstanceOf(AppendConflictError)
    expect(other).toMatchObject({ expectedIndex: 1, actualIndex: 3 })
    expect(ids(await store.read(s))).toEqual([expect.any(String), progress.id, expect.any(String)])
  })
}

/** Appends that guard only their leading events (`guardIds: n`). */
function itGuardsLeadingEvents({ harness, it, expect }: EventIdsKit): void {
  it('guards only the leading events with guardIds: n, and answers a repeat of the batch as a replay of it, of those events alone as a replay of them', async () => {
    const { store } = harness()
    const s = session()
    await store.append(s, [ev(randomUUID())])
    const own = [ev(randomUUID()), ev(randomUUID())]
    const decisions = [ev(randomUUID()), ev(randomUUID())]
    const refused = await store.append(s, [...own, ...decisions], { guardIds: 2 }).catch((e) => e)
    expect(refused).toMatchObject({ code: 'INVALID_APPEND' })
    const negative = await store.append(s, own, { expectedIndex: 1, guardIds: -1 }).catch((e) => e)
    expect(negative).toMatchObject({ code: 'INVALID_APPEND' })
    const first = await store.append(s, [...own, ...decisions], {
      expectedIndex: 1,
      guardIds: 2,
    })
    expect(first.replayed).toBe(false)
    expect(indices(first.events)).toEqual([2, 3, 4, 5])
    await store.append(s, [ev(randomUUID())])
    // The whole batch again (an unknown outcome): a replay of it; its own
    // events on their own (a client's retry): a replay of those two.
    const again = await store.append(s, [...own, ...decisions], {
      expectedIndex: 1,
      guardIds: 2,
    })
    expect(again).toMatchObject({ replayed: true, events: first.events })
    const alone = await store.append(
      s,
      own.map((event) => ({ ...event })),
    )
    expect(alone).toMatchObject({ replayed: true, events: first.events.slice(0, 2) })
    // The same events with other decisions after them (taken on a later
    // state): a replay of the guarded events alone, nothing written.
    const otherDecisions = await store.append(s, [...own, ev(randomUUID())], {
      expectedIndex: 6,
      guardIds: 2,
    })
    expect(otherDecisions).toMatchObject({ replayed: true, events: first.events.slice(0, 2) })
    // Only one of them, or with other content, is still refused.
    await expect(store.append(s, [own[1] as NewEvent])).rejects.toBeInstanceOf(
      PartialDuplicateBatchError,
    )
    // The unguarded events' IDs hold no guard: an append that reuses one
    // elsewhere is not judged against them (their IDs are the caller's to keep unique).
    const reused = await store.append(session(), [decisions[0] as NewEvent])
    expect(reused.replayed).toBe(false)
    expect(await store.head(s)).toBe(6)
  })
}

/** A batch that repeats an ID within itself. */
function itRejectsRepeatsWithinABatch({ harness, it, expect }: EventIdsKit): void {
  it('rejects a batch that repeats an ID within itself', async () => {
    const { store } = harness()
    const s = session()
    const id = randomUUID()
    await expect(store.append(s, [ev(id), ev(id)])).rejects.toBeInstanceOf(
      PartialDuplicateBatchError,
    )
    expect(await store.head(s)).toBe(0)
  })
}

/** Event IDs: an exact replay answers with the stored events, any other reuse is refused; unguarded appends. */
export function describeEventIds(
  harness: () => EventStoreHarness,
  { describe, it, expect }: ConformanceTestApi,
): void {
  describe('event IDs', () => {
    const kit = { harness, it, expect }
    itAnswersReplays(kit)
    itRejectsReusedIds(kit)
    itAppendsUnguarded(kit)
    itGuardsLeadingEvents(kit)
    itRejectsRepeatsWithinABatch(kit)
  })
}
