import { describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import {
  contract,
  eventLog,
  InvalidEventError,
  MAX_PAYLOAD_DEPTH,
  type StoredEvent,
} from '../../../shared/index.ts'
import { memoryEventStore } from '../../../shared/stores/memory/memory-event-store.ts'

const notes = contract({
  name: 'notes',
  events: {
    'note.added': z.object({ text: z.string().min(1) }),
    'note.cleared': z.object({}),
  },
  reducer: {
    name: 'notes.v1',
    initialState: [] as string[],
    fold: (state, event) =>
      event.type === 'note.added'
        ? [...state, event.payload.text]
        : event.type === 'note.cleared'
          ? []
          : state,
  },
})

describe('contract()', () => {
  it('types the reducer from the declared events and folds them', async () => {
    const reducer = notes.reducer
    if (!reducer) throw new Error('the contract has a reducer')
    expectTypeOf(reducer.initialState).toEqualTypeOf<string[]>()
    const log = eventLog({ store: memoryEventStore(), contract: notes })
    const session = log.session('s')
    await session.append([
      { type: 'note.added', payload: { text: 'a' } },
      { type: 'other', payload: null },
      { type: 'note.added', payload: { text: 'b' } },
    ])
    expect(await session.state(reducer)).toMatchObject({ state: ['a', 'b'], index: 3 })
  })

  it('validates declared types, naming the type and the path', () => {
    expect(() => notes.validate({ type: 'note.added', payload: { text: '' } })).toThrow(
      InvalidEventError,
    )
    expect(() => notes.validate({ type: 'note.added', payload: {} })).toThrow(
      expect.objectContaining({ eventType: 'note.added', path: ['text'], code: 'INVALID_EVENT' }),
    )
    expect(notes.validate({ type: 'unknown', payload: 1 })).toEqual({ type: 'unknown', payload: 1 })
    expect(notes.declares('note.added')).toBe(true)
    expect(notes.declares('toString')).toBe(false)
  })

  it('rejects events whose envelope is wrong before any contract runs', async () => {
    const session = eventLog({ store: memoryEventStore() }).session('s')
    const cases: unknown[] = [
      null,
      'text',
      { type: '', payload: 1 },
      { type: 'x' },
      { id: '', type: 'x', payload: 1 },
      { id: 'a\u0000b', type: 'x', payload: 1 },
      { id: 'x'.repeat(257), type: 'x', payload: 1 },
    ]
    for (const event of cases) {
      await expect(session.append([event as StoredEvent])).rejects.toBeInstanceOf(InvalidEventError)
    }
    expect(await session.head()).toBe(0)
  })

  it("runs the log's asynchronous check after the contract's validation, and a refusal writes nothing", async () => {
    const seen: unknown[] = []
    const session = eventLog({
      store: memoryEventStore(),
      contract: notes,
      check: async (events) => {
        seen.push(...events.map((event) => event.payload))
        if (events.some((event) => event.type === 'note.cleared')) {
          throw new InvalidEventError('note.cleared', [{ path: [], message: 'not today' }])
        }
      },
    }).session('s')
    await session.append([{ id: 'n1', type: 'note.added', payload: { text: 'a', extra: 1 } }])
    await expect(
      session.append([
        { type: 'note.added', payload: { text: 'b' } },
        { type: 'note.cleared', payload: {} },
      ]),
    ).rejects.toMatchObject({ code: 'INVALID_EVENT', eventType: 'note.cleared' })
    // It sees the parsed payloads (zod stripped `extra`), and a refused batch is not stored.
    expect(seen[0]).toEqual({ text: 'a' })
    expect((await session.read()).map((event) => event.id)).toEqual(['n1'])
  })

  it('refuses session IDs that are empty, too long or not printable', () => {
    const log = eventLog({ store: memoryEventStore() })
    for (const id of ['', 'x'.repeat(257), 'a\nb']) {
      expect(() => log.session(id)).toThrow(expect.objectContaining({ code: 'INVALID_SESSION_ID' }))
    }
  })

  // Characters that make one ID pass for another in logs, the inspector and
  // the page, or that have no UTF-8 form for DynamoDB.
  const deceptive: [string, string][] = [
    ['a bidi override (U+202E)', 'abc\u202Efdp.exe'],
    ['a zero-width space (U+200B)', 'room\u200B1'],
    ['a zero-width joiner (U+200D)', 'room\u200D1'],
    ['a byte order mark (U+FEFF)', '\uFEFFroom1'],
    ['a line separator (U+2028)', 'room\u20281'],
    ['a paragraph separator (U+2029)', 'room\u20291'],
    ['a no-break space (U+00A0)', 'room\u00A01'],
    ['a lone low surrogate', 'room\uDC00'],
    ['a lone high surrogate', '\uD800room'],
  ]

  it.each(deceptive)('refuses a session ID with %s, showing the character escaped', (_what, id) => {
    const log = eventLog({ store: memoryEventStore() })
    const error = (() => {
      try {
        log.session(id)
      } catch (thrown) {
        return thrown as Error
      }
    })()
    expect(error).toMatchObject({ code: 'INVALID_SESSION_ID' })
    expect(error?.message).toMatch(/\\u[0-9a-f]{4}/)
    expect(error?.message.includes(id)).toBe(false)
  })

  it.each(deceptive)(
    'refuses an event ID or type with %s, writing nothing',
    async (_what, text) => {
      const session = eventLog({ store: memoryEventStore() }).session('s')
      const byId = await session.append([{ id: text, type: 'x', payload: 1 }]).catch((e) => e)
      expect(byId).toMatchObject({ code: 'INVALID_EVENT', path: ['id'] })
      expect(byId.message).toContain('at id:')
      const byType = await session.append([{ type: `x.${text}`, payload: 1 }]).catch((e) => e)
      expect(byType).toMatchObject({ code: 'INVALID_EVENT', path: ['type'] })
      expect(await session.head()).toBe(0)
    },
  )

  it('keeps accepting printable IDs: spaces, accents, other scripts and emoji', async () => {
    const log = eventLog({ store: memoryEventStore() })
    for (const id of ['room 1', 'café', 'e\u0301', '部屋', 'ruum-🚀']) {
      const stored = await log.session(id).append([{ id: `${id}-event`, type: 'x', payload: 1 }])
      expect(stored[0]).toMatchObject({ id: `${id}-event`, sessionId: id })
    }
  })

  const nested = (depth: number): unknown => {
    let value: unknown = 'leaf'
    for (let level = 0; level < depth; level++) value = level % 2 ? { inner: value } : [value]
    return value
  }

  it(`accepts a payload nested ${MAX_PAYLOAD_DEPTH} levels deep and refuses one level more, stating the limit`, async () => {
    const session = eventLog({ store: memoryEventStore() }).session('s')
    await session.append([{ type: 'x', payload: nested(MAX_PAYLOAD_DEPTH) }])
    const error = await session
      .append([{ type: 'x', payload: nested(MAX_PAYLOAD_DEPTH + 1) }])
      .catch((e) => e)
    expect(error).toBeInstanceOf(InvalidEventError)
    expect(error.message).toContain(`deeper than ${MAX_PAYLOAD_DEPTH} levels`)
    expect(await session.head()).toBe(1)
  })

  it('refuses a payload nested 100,000 levels deep with INVALID_EVENT, not a stack overflow', async () => {
    const session = eventLog({ store: memoryEventStore() }).session('s')
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)
    const error = await session.append([{ type: 'x', payload: deep }]).catch((e) => e)
    expect(error).toMatchObject({ code: 'INVALID_EVENT' })
    expect(await session.head()).toBe(0)
  })
})
