import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import { contract, eventLog, type StoredEvent, versionedEvent } from '../../index.ts'
import { sleep } from '../../timing/sleep.ts'
import {
  type ConformanceTestApi,
  collect,
  type EventStoreHarness,
  ev,
  indices,
  session,
} from './conformance-kit.ts'

/** Reading a range, tailing a session until the signal aborts, and the log's reads upcast. */
export function describeReadAndTail(
  harness: () => EventStoreHarness,
  { describe, it, expect }: ConformanceTestApi,
): void {
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

    it("reads and tails older events upcast through the log, stamps a versioned type's appends, and keeps the stored events as written", async () => {
      const { store } = harness()
      const id = session()
      await store.append(id, [ev(randomUUID(), { text: 'old' }, 'note.edited')])
      const edits = contract({
        name: 'edits',
        events: {
          'note.edited': versionedEvent({
            version: 2,
            schema: z.object({ body: z.string() }),
            upcast: { 1: (v1: { text: string }) => ({ body: v1.text }) },
          }),
        },
      })
      const s = eventLog({ store, contract: edits }).session(id)
      await s.append([{ type: 'note.edited', payload: { body: 'new' } }])
      const current = [
        { payload: { body: 'old' }, version: 2 },
        { payload: { body: 'new' }, version: 2 },
      ]
      const shape = (events: StoredEvent[]) =>
        events.map(({ payload, version }) => ({ payload, version }))
      expect(shape(await s.read())).toEqual(current)
      const controller = new AbortController()
      const tailed = await collect(s.tail({ signal: controller.signal }), 2)
      controller.abort()
      expect(shape(tailed)).toEqual(current)
      expect(shape(await store.read(id))).toEqual([
        { payload: { text: 'old' }, version: undefined },
        { payload: { body: 'new' }, version: 2 },
      ])
    })
  })
}
