import { randomUUID } from 'node:crypto'
import { CursorConflictError } from '../../index.ts'
import { type ConformanceTestApi, type EventStoreHarness, ev, session } from './conformance-kit.ts'

/** Handler cursors, moved with a handler's commit or alone. */
export function describeCursors(
  harness: () => EventStoreHarness,
  { describe, it, expect }: ConformanceTestApi,
): void {
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
}
