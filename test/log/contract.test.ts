import { describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import { contract, eventLog, InvalidEventError, type StoredEvent } from '../../shared/index.ts'
import { memoryEventStore } from '../../shared/stores/memory/memory-event-store.ts'

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
    expect(await session.state(reducer)).toEqual({ state: ['a', 'b'], index: 3 })
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

  it('refuses session IDs that are empty, too long or not printable', () => {
    const log = eventLog({ store: memoryEventStore() })
    for (const id of ['', 'x'.repeat(257), 'a\nb']) {
      expect(() => log.session(id)).toThrow(expect.objectContaining({ code: 'INVALID_SESSION_ID' }))
    }
  })
})
