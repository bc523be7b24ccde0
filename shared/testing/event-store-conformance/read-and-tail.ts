import { randomUUID } from 'node:crypto'
import type { StoredEvent } from '../../index.ts'
import { sleep } from '../../timing/sleep.ts'
import {
  type ConformanceTestApi,
  collect,
  type EventStoreHarness,
  ev,
  indices,
  session,
} from './conformance-kit.ts'

/** Reading a range, and tailing a session until the signal aborts. */
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
  })
}
