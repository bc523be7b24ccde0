import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { logEndpoint } from '../../../shared/http/log-endpoint.ts'
import { contract, eventLog, type StoredEvent } from '../../../shared/index.ts'
import { memoryEventStore } from '../../../shared/stores/memory/memory-event-store.ts'

// The inspector's reads: a session's stored events and claims as JSON,
// behind the same read check as the stream, and with no side effect.

const notes = contract({
  name: 'notes',
  events: { 'note.added': z.object({ text: z.string() }) },
})

async function setup() {
  const store = memoryEventStore()
  const log = eventLog({ store, contract: notes })
  const reads: string[] = []
  const fetch = logEndpoint({ log, onRead: async (sessionId) => void reads.push(sessionId) })
  await log.session('s1').append([
    { id: 'n1', type: 'note.added', payload: { text: 'one' } },
    { id: 'n2', type: 'note.added', payload: { text: 'two' } },
    { id: 'n3', type: 'note.added', payload: { text: 'three' } },
  ])
  const get = (query: string, authorize?: () => boolean) =>
    fetch(new Request(`http://a2.test/api/agent?${query}`), authorize ? { authorize } : undefined)
  return { store, get, reads }
}

describe('GET ?events and ?claims: read-only JSON for the inspector', () => {
  it('?events answers every stored event and the head, and wakes nothing', async () => {
    const { get, reads } = await setup()
    const response = await get('sessionId=s1&events')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toContain('application/json')
    expect(response.headers.get('cache-control')).toBe('no-store')
    const body = (await response.json()) as {
      sessionId: string
      head: number
      events: StoredEvent[]
    }
    expect(body.sessionId).toBe('s1')
    expect(body.head).toBe(3)
    expect(body.events.map((event) => [event.id, event.index])).toEqual([
      ['n1', 1],
      ['n2', 2],
      ['n3', 3],
    ])
    expect(reads).toEqual([])
  })

  it('?events&after=N answers the events after N', async () => {
    const { get } = await setup()
    const body = (await (await get('sessionId=s1&events&after=2')).json()) as {
      head: number
      events: StoredEvent[]
    }
    expect(body.events.map((event) => event.index)).toEqual([3])
    expect(body.head).toBe(3)
  })

  it('?claims=K1,K2 answers each claim, null for one nobody took', async () => {
    const { store, get } = await setup()
    const held = await store.claim('s1', 'tool:a', { ttlMs: 60_000 })
    const body = (await (await get('sessionId=s1&claims=tool:a,gen:b')).json()) as {
      claims: Record<string, unknown>
    }
    expect(body.claims).toEqual({
      'tool:a': { key: 'tool:a', attempt: 1, expiresAt: held.expiresAt },
      'gen:b': null,
    })
  })

  it('is refused with 403 FORBIDDEN when authorize denies the read', async () => {
    const { get } = await setup()
    for (const query of ['sessionId=s1&events', 'sessionId=s1&claims=tool:a']) {
      const response = await get(query, () => false)
      expect(response.status).toBe(403)
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN')
    }
  })

  it('refuses more than 100 claim keys with 400 MALFORMED_REQUEST', async () => {
    const { get } = await setup()
    const keys = Array.from({ length: 101 }, (_, i) => `k${i}`).join(',')
    const response = await get(`sessionId=s1&claims=${keys}`)
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      'MALFORMED_REQUEST',
    )
  })
})
