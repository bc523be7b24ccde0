import { randomUUID } from 'node:crypto'
import { AppendConflictError, LifeEndedError } from '../../index.ts'
import { eventLog } from '../../log/event-log.ts'
import {
  type ConformanceTestApi,
  type EventStoreHarness,
  ev,
  ids,
  indices,
  session,
} from './conformance-kit.ts'

/** What the lives tests share: two instances over one store's data, and appends to fill a life. */
interface LivesKit {
  it: ConformanceTestApi['it']
  expect: ConformanceTestApi['expect']
  instances(): { a: EventStoreHarness['store']; b: EventStoreHarness['store'] }
  /** Appends `count` single events to `s`, and returns the life of the last. */
  fill(store: EventStoreHarness['store'], s: string, count: number): Promise<string>
}

function livesKit(harness: () => EventStoreHarness, api: ConformanceTestApi): LivesKit {
  return {
    it: api.it,
    expect: api.expect,
    instances: () => {
      const h = harness()
      return { a: h.store, b: h.another?.() ?? h.store }
    },
    fill: async (store, s, count) => {
      let last: Awaited<ReturnType<typeof store.append>> | undefined
      for (let i = 0; i < count; i++) last = await store.append(s, [ev(randomUUID())])
      return last?.events.at(-1)?.life as string
    },
  }
}

/** A life starts with a session's first append and an append naming it lands only there. */
function itStartsAndEndsLives({ it, expect, instances, fill }: LivesKit): void {
  it("starts a life with a session's first append, keeps it for every event, and starts another after an erase", async () => {
    const { a } = instances()
    const s = session()
    const first = await a.append(s, [ev(randomUUID()), ev(randomUUID())])
    const life = first.events[0]?.life as string
    expect(typeof life).toBe('string')
    expect(life.length).toBeGreaterThan(0)
    await a.append(s, [ev(randomUUID())])
    expect((await a.read(s)).map((event) => event.life)).toEqual([life, life, life])
    await a.erase(s)
    const again = await a.append(s, [ev(randomUUID())])
    expect(again.events[0]).toMatchObject({ index: 1 })
    expect(again.events[0]?.life).not.toBe(life)
    expect((await a.read(s)).map((event) => event.life)).toEqual([again.events[0]?.life])
  })

  it('lands an append naming a life only in that life: LIFE_ENDED once it ended, writing nothing', async () => {
    const { a, b } = instances()
    const s = session()
    const life = await fill(a, s, 3)
    expect((await a.append(s, [ev(randomUUID())], { life })).events[0]).toMatchObject({
      index: 4,
      life,
    })
    await b.erase(s)
    // Ended, and nothing since: the session has no life, and an append
    // naming the ended one starts none (not even expecting an empty log).
    for (const options of [{}, { expectedIndex: 0 }]) {
      const gone = await a.append(s, [ev(randomUUID())], { life, ...options }).catch((e) => e)
      expect(gone).toBeInstanceOf(LifeEndedError)
      expect(gone).toMatchObject({ code: 'LIFE_ENDED', life, currentLife: undefined })
    }
    expect(await a.head(s)).toBe(0)
    const next = await fill(b, s, 4)
    // Started over, longer than the index it expects: still not its life.
    for (const options of [{}, { expectedIndex: 4 }, { expectedIndex: 4, guardIds: false }]) {
      const error = await a.append(s, [ev(randomUUID())], { life, ...options }).catch((e) => e)
      expect(error).toBeInstanceOf(LifeEndedError)
      expect(error).toMatchObject({ life, currentLife: next })
    }
    expect(await a.head(s)).toBe(4)
    expect((await a.read(s)).map((event) => event.life)).toEqual([next, next, next, next])
  })
}

/** The new life goes on whole whatever an instance saw of the ended one: its end, its erases, its heads. */
function itKeepsTheNewLifeWhole({ it, expect, instances, fill }: LivesKit): void {
  it('appends at the end of the new life from an instance that saw the log of the ended one reach further', async () => {
    const { a, b } = instances()
    const s = session()
    await fill(a, s, 5)
    expect(await a.head(s)).toBe(5)
    await b.erase(s)
    const life = await fill(b, s, 2)
    const { events } = await a.append(s, [ev('late')])
    expect(events[0]).toMatchObject({ id: 'late', index: 3, life })
    for (const store of [a, b]) {
      expect(indices(await store.read(s))).toEqual([1, 2, 3])
      expect(await store.head(s)).toBe(3)
      expect((await store.restingHead?.(s))?.index ?? (await store.head(s))).toBe(3)
    }
  })

  it('erases only the life an erase names: one that ended leaves the next life whole', async () => {
    const { a, b } = instances()
    const s = session()
    const first = await fill(a, s, 3)
    expect((await b.erase(s, { life: first })).events).toBe(3)
    const next = await fill(b, s, 2)
    // The same erase, delivered late (a stalled server held it): nothing of the new life goes.
    const late = await a.erase(s, { life: first })
    expect(late).toMatchObject({ events: 0, heads: 0, snapshots: 0, cursors: 0, claims: 0 })
    expect(indices(await b.read(s))).toEqual([1, 2])
    expect((await b.read(s)).every((event) => event.life === next)).toBe(true)
    expect((await a.erase(s, { life: next })).events).toBe(2)
    expect(await b.head(s)).toBe(0)
  })

  it("names the life of a resting reader's head: a log erased and started over to the same length is another log", async () => {
    const { a, b } = instances()
    const s = session()
    const first = await fill(a, s, 3)
    const before = await eventLog({ store: a }).session(s).restingHead()
    expect(before).toEqual({ index: 3, life: first })
    await b.erase(s)
    expect(await eventLog({ store: a }).session(s).restingHead()).toEqual({ index: 0 })
    const next = await fill(b, s, 3)
    for (const store of [a, b]) {
      const after = await eventLog({ store }).session(s).restingHead()
      expect(after).toEqual({ index: 3, life: next })
    }
    expect(next).not.toBe(first)
  })
}

/** Writes an instance meant for the ended life, sent late: refused, nothing lands. */
function itRefusesLateWritesOfEndedLives({ it, expect, instances, fill }: LivesKit): void {
  it('refuses an expected index that instance saw in the ended life, guarded or not, writing nothing', async () => {
    const { a, b } = instances()
    const s = session()
    await fill(a, s, 5)
    await b.erase(s)
    await fill(b, s, 2)
    for (const guardIds of [true, false]) {
      const error = await a
        .append(s, [ev(randomUUID())], { expectedIndex: 5, guardIds })
        .catch((e) => e)
      expect(error).toBeInstanceOf(AppendConflictError)
      expect(error).toMatchObject({ expectedIndex: 5, actualIndex: 2 })
    }
    expect(indices(await b.read(s))).toEqual([1, 2])
  })

  it("keeps a step's progress of the ended life out of a new one just as long", async () => {
    const { a, b } = instances()
    const s = session()
    const opening = await a.append(s, [ev(randomUUID())])
    const life = opening.events[0]?.life as string
    for (let index = 1; index < 5; index++) {
      await a.append(s, [ev(randomUUID())], {
        expectedIndex: index,
        guardIds: false,
        progress: true,
        life,
      })
    }
    await b.erase(s)
    const next = await fill(b, s, 5)
    const late = ev('late progress', { old: true })
    const error = await a
      .append(s, [late], { expectedIndex: 5, guardIds: false, progress: true, life })
      .catch((e) => e)
    expect(error).toBeInstanceOf(LifeEndedError)
    const log = await b.read(s)
    expect(log.map((event) => event.life)).toEqual([next, next, next, next, next])
    expect(ids(log)).not.toContain('late progress')
    expect(await b.head(s)).toBe(5)
    // And the new life goes on where it is.
    expect((await b.append(s, [ev(randomUUID())])).events[0]).toMatchObject({ index: 6 })
  })
}

/** Replays and snapshots of the ended life stay out of the new one. */
function itKeepsReplaysAndSnapshotsInTheirLife({ it, expect, instances, fill }: LivesKit): void {
  it("answers a batch sent again in an ended life as LIFE_ENDED, not as the new life's replay of the same IDs", async () => {
    const { a, b } = instances()
    const s = session()
    const batch = [ev('same-1'), ev('same-2')]
    const first = await a.append(s, batch)
    const life = first.events[0]?.life as string
    const progress = [ev('same-p')]
    await a.append(s, progress, { expectedIndex: 2, guardIds: false, life })
    await b.erase(s)
    // The new life writes events with the same IDs, as derived IDs may be.
    const second = await b.append(s, batch)
    expect(second.replayed).toBe(false)
    await b.append(s, progress, { expectedIndex: 2, guardIds: false })
    for (const [events, options] of [
      [batch, { life }],
      [progress, { expectedIndex: 2, guardIds: false, life }],
    ] as const) {
      const error = await a.append(s, events, options).catch((e) => e)
      expect(error).toBeInstanceOf(LifeEndedError)
    }
    // Named by no life, it is the session's as it is now: a replay there.
    expect((await a.append(s, batch)).replayed).toBe(true)
    expect(indices(await a.read(s))).toEqual([1, 2, 3])
  })

  it("stores no snapshot for the ended life, and folds the new one's log from scratch", async () => {
    const { a, b } = instances()
    const s = session()
    const old = await fill(a, s, 3)
    await a.writeSnapshot(s, 'r', { index: 3, state: 'old', life: old })
    await b.erase(s)
    const next = await fill(b, s, 3)
    // A fold of the ended life that read its log before the erase, written late.
    await a.writeSnapshot(s, 'r', { index: 3, state: 'old, late', life: old })
    expect(await b.readSnapshot(s, 'r')).toBeUndefined()
    await b.writeSnapshot(s, 'r', { index: 3, state: 'new', life: next })
    expect(await a.readSnapshot(s, 'r')).toEqual({ index: 3, state: 'new', life: next })
  })
}

/**
 * A session's lives: each erase (or expiry) ends one, the next append starts
 * another, and nothing one process remembers of an ended life lands in the
 * next, on any instance of the store (`harness().another()`: a second one
 * over the same data, as another process has it).
 */
export function describeLives(harness: () => EventStoreHarness, api: ConformanceTestApi): void {
  api.describe('lives', () => {
    const kit = livesKit(harness, api)
    itStartsAndEndsLives(kit)
    itKeepsTheNewLifeWhole(kit)
    itRefusesLateWritesOfEndedLives(kit)
    itKeepsReplaysAndSnapshotsInTheirLife(kit)
  })
}
