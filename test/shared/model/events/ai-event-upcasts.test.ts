import { describe, expect, it } from 'vitest'
import { contract, eventLog, type StoredEvent } from '../../../../shared/index.ts'
import { aiEventDefinitions } from '../../../../shared/model/events/ai-event-definitions.ts'
import { AI_EVENT_UPCASTS } from '../../../../shared/model/events/ai-event-upcasts.ts'
import { AI_EVENTS } from '../../../../shared/model/events/ai-events.ts'
import { sessionReducer } from '../../../../shared/model/state/session-state.ts'
import { memoryEventStore } from '../../../../shared/stores/memory/memory-event-store.ts'

// A test-only entry: as if a package version had renamed `why` to `reason`.
const registry = {
  'ai.session.closed': {
    version: 2,
    upcast: { 1: (v1: { why?: string }) => ({ reason: v1.why }) },
  },
}

const closed = (payload: unknown, version?: number): StoredEvent => ({
  id: 'c',
  type: 'ai.session.closed',
  payload,
  sessionId: 's',
  life: 'L',
  index: 1,
  timestamp: 1,
  ...(version === undefined ? {} : { version }),
})

describe("A2's own events: the same upcasting, by A2's registry", () => {
  it('is empty today: every ai.* type is version 1, a plain schema', () => {
    expect(AI_EVENT_UPCASTS).toEqual({})
    expect(aiEventDefinitions()).toEqual(AI_EVENTS)
  })

  it("the server's log stamps and upcasts ai.* events by the registry, checked by AI_EVENTS' schemas", async () => {
    const store = memoryEventStore()
    await store.append('s', [{ id: 'old', type: 'ai.session.closed', payload: { why: 'done' } }])
    const declared = contract({ name: 'agent', events: aiEventDefinitions(registry) })
    const session = eventLog({ store, contract: declared }).session('s')
    expect((await session.read())[0]).toMatchObject({ payload: { reason: 'done' }, version: 2 })
    const [appended] = await session.append(
      [{ id: 'a2.new', type: 'ai.session.closed', payload: { reason: 'now' } }],
      { author: 'a2' },
    )
    expect(appended?.version).toBe(2)
  })

  it('a registry entry for a type A2 does not declare is refused', () => {
    expect(() => aiEventDefinitions({ 'ai.nope': registry['ai.session.closed'] })).toThrow(
      /"ai\.nope" is not a declared event type/,
    )
  })

  it('the session reducer (server and browser) folds ai.* and app events upcast', () => {
    const seen: unknown[] = []
    const app = {
      reducer: {
        name: 'seen.v1',
        initialState: { count: 0 },
        fold: (state: { count: number }, event: StoredEvent) => {
          seen.push(event.payload)
          return { count: state.count + 1 }
        },
      },
    }
    const reducer = sessionReducer(app, registry)
    const folded = reducer.fold(reducer.initialState, closed({ why: 'done' }))
    expect(seen).toEqual([{ reason: 'done' }])
    expect(folded.ai.closed).toBe(true)
    // Without the registry entry, the payload reaches the reducers as stored.
    sessionReducer(app).fold(reducer.initialState, closed({ why: 'done' }))
    expect(seen[1]).toEqual({ why: 'done' })
  })
})
