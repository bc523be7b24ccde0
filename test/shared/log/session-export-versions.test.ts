import { describe, expect, it } from 'vitest'
import {
  exportSession,
  importSession,
  memoryEventStore,
  parseSessionExport,
} from '../../../shared/index.ts'

describe("an export keeps each event's schema version", () => {
  it('writes `version` on a line only above 1, and an import stores it again', async () => {
    const store = memoryEventStore()
    await store.append('s', [
      { id: 'a', type: 'plan.changed', payload: { plan: 'pro' } },
      { id: 'b', type: 'plan.changed', payload: { plan: 'pro', seats: 2 }, version: 2 },
    ])
    const jsonl = await exportSession(store, 's')
    const [, first, second] = jsonl.split('\n').map((line) => (line ? JSON.parse(line) : line))
    expect(first).not.toHaveProperty('version')
    expect(second).toMatchObject({ id: 'b', version: 2 })

    const copy = memoryEventStore()
    await importSession(copy, jsonl)
    const imported = await copy.read('s')
    expect(imported.map((event) => event.version)).toEqual([undefined, 2])
    expect(Object.hasOwn(imported[0] as object, 'version')).toBe(false)
  })

  it('imports an export written before versions (no `version` on any line) as version 1', async () => {
    const old = [
      JSON.stringify({ format: 'a2-aws.session', version: 1, sessionId: 's', events: 1 }),
      JSON.stringify({
        index: 1,
        id: 'a',
        type: 'plan.changed',
        timestamp: 5,
        payload: { plan: 'pro' },
      }),
    ].join('\n')
    const store = memoryEventStore()
    await importSession(store, old)
    expect((await store.read('s'))[0]).not.toHaveProperty('version')
  })

  it('refuses a line whose version is not an integer from 1 on, and reads 1 as none', () => {
    const line = (version: unknown) =>
      [
        JSON.stringify({ format: 'a2-aws.session', version: 1, sessionId: 's', events: 1 }),
        JSON.stringify({ index: 1, id: 'a', type: 't', timestamp: 5, payload: {}, version }),
      ].join('\n')
    expect(() => parseSessionExport(line(0))).toThrow(
      expect.objectContaining({ code: 'INVALID_EXPORT' }),
    )
    expect(() => parseSessionExport(line(1.5))).toThrow(
      expect.objectContaining({ code: 'INVALID_EXPORT' }),
    )
    expect(parseSessionExport(line(3)).events[0]?.version).toBe(3)
    expect(parseSessionExport(line(1)).events[0]).not.toHaveProperty('version')
  })
})
