import { randomBytes, randomUUID } from 'node:crypto'
import { BatchTooLargeError, EventTooLargeError } from '../../index.ts'
import { MAX_APPEND_BYTES, MAX_EVENT_BYTES, MAX_EVENTS_PER_APPEND } from '../../log/limits.ts'
import { type ConformanceTestApi, type EventStoreHarness, ev, session } from './conformance-kit.ts'

/** Sizes: compression, and the event and batch limits every store answers the same way. */
export function describeSizeLimits(
  harness: () => EventStoreHarness,
  { describe, it, expect }: ConformanceTestApi,
): void {
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
}
