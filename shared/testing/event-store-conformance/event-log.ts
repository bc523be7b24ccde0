import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import { contract, eventLog, InvalidEventError, ReservedEventIdError } from '../../index.ts'
import { type ConformanceTestApi, type EventStoreHarness, ev, session } from './conformance-kit.ts'

/** `eventLog()` over the store: contract validation and ID rules. */
export function describeEventLog(
  harness: () => EventStoreHarness,
  { describe, it, expect }: ConformanceTestApi,
): void {
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
        await expect(log.session(s).append([ev(`${randomUUID()}${hidden}`)])).rejects.toMatchObject(
          { code: 'INVALID_EVENT', path: ['id'] },
        )
        expect(await store.head(s)).toBe(0)
      }
    })

    it("answers a resting reader's head: the head after any append but a step's progress, never past it after progress", async () => {
      const { store } = harness()
      const id = session()
      const s = eventLog({ store }).session(id)
      expect((await s.restingHead()).index).toBe(0)
      await s.append([ev(randomUUID()), ev(randomUUID())])
      expect((await s.restingHead()).index).toBe(2)
      await store.append(id, [ev(randomUUID())], { expectedIndex: 2, guardIds: false })
      expect((await s.restingHead()).index).toBe(3)
      await store.append(id, [ev(randomUUID())], {
        expectedIndex: 3,
        guardIds: false,
        progress: true,
      })
      // A step streaming its progress may be past it (see EventStore.restingHead).
      expect([3, 4]).toContain((await s.restingHead()).index)
      await s.append([ev(randomUUID())])
      expect((await s.restingHead()).index).toBe(5)
      expect(await s.head()).toBe(5)
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
}
