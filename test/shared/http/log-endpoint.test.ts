import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { HttpError } from '../../../shared/http/http-error.ts'
import { type LogEndpointOptions, logEndpoint } from '../../../shared/http/log-endpoint.ts'
import {
  AppendContendedError,
  contract,
  type EventStore,
  eventLog,
  MAX_APPEND_BYTES,
  MAX_PAYLOAD_DEPTH,
  type StoredEvent,
} from '../../../shared/index.ts'
import { memoryEventStore } from '../../../shared/stores/memory/memory-event-store.ts'
import { readSse } from '../../support/sse.ts'

const notes = contract({
  name: 'notes',
  events: { 'note.added': z.object({ text: z.string() }) },
})

function setup(options: Partial<LogEndpointOptions> = {}) {
  const log = eventLog({ store: memoryEventStore(), contract: notes })
  const fetch = logEndpoint({ log, ...options })
  const base = 'http://a2.test/api/agent'
  const post = (body: unknown, { sessionId = 's1', headers = {} as Record<string, string> } = {}) =>
    fetch(
      new Request(`${base}?sessionId=${sessionId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    )
  const get = (query: string, headers: Record<string, string> = {}, signal?: AbortSignal) =>
    fetch(new Request(`${base}?${query}`, { headers, ...(signal ? { signal } : {}) }))
  return { log, fetch, post, get, base }
}

const note = (id: string, text = id) => ({ id, type: 'note.added', payload: { text } })

async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status)
  expect(response.headers.get('content-type')).toContain('application/json')
  const body = (await response.json()) as { error: { code: string; message: string } }
  expect(body.error.code).toBe(code)
  expect(body.error.message.length).toBeGreaterThan(0)
  return body.error
}

describe('POST: pushes', () => {
  it('answers 200 with the events as stored', async () => {
    const { post, log } = setup()
    const response = await post({ events: [note('n1'), note('n2')] })
    expect(response.status).toBe(200)
    const { events } = (await response.json()) as { events: StoredEvent[] }
    expect(events.map((e) => [e.id, e.index, e.sessionId])).toEqual([
      ['n1', 1, 's1'],
      ['n2', 2, 's1'],
    ])
    expect(await log.session('s1').head()).toBe(2)
  })

  it('answers a replayed batch with the original answer', async () => {
    const { post } = setup()
    const first = await (await post({ events: [note('n1')] })).json()
    await post({ events: [note('n2')] })
    const again = await post({ events: [note('n1')] })
    expect(again.status).toBe(200)
    expect(await again.json()).toEqual(first)
  })

  it('accepts the session in the body', async () => {
    const { fetch, base, log } = setup()
    const response = await fetch(
      new Request(base, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sessionId: 'in-body', events: [note('b1')] }),
      }),
    )
    expect(response.status).toBe(200)
    expect(await log.session('in-body').head()).toBe(1)
  })

  it.each([
    ['malformed JSON', '{"events": [', 400, 'MALFORMED_JSON'],
    ['a body that is not { events }', { note: 1 }, 400, 'MALFORMED_REQUEST'],
    ['an empty batch', { events: [] }, 400, 'MALFORMED_REQUEST'],
    ['an event that is not an object', { events: [42] }, 400, 'INVALID_EVENT'],
    ['an event with no type', { events: [{ id: 'x', payload: {} }] }, 400, 'INVALID_EVENT'],
    [
      'an invalid payload',
      { events: [{ id: 'x', type: 'note.added', payload: { text: 7 } }] },
      400,
      'INVALID_EVENT',
    ],
    ['a reserved event ID', { events: [{ ...note('a2.ai:forged') }] }, 400, 'RESERVED_EVENT_ID'],
    [
      'too many events for one append',
      { events: Array.from({ length: 50 }, (_, i) => note(`m${i}`)) },
      413,
      'BATCH_TOO_LARGE',
    ],
  ])('answers %s with %i %s and stores nothing', async (_what, body, status, code) => {
    const { post, log } = setup()
    await expectError(await post(body), status, code)
    expect(await log.session('s1').head()).toBe(0)
  })

  it('names the event type and the failing path of an invalid payload', async () => {
    const { post } = setup()
    const error = await expectError(
      await post({ events: [{ type: 'note.added', payload: { text: ['no'] } }] }),
      400,
      'INVALID_EVENT',
    )
    expect(error).toMatchObject({ details: { eventType: 'note.added', path: ['text'] } })
  })

  it('answers 409 PARTIAL_DUPLICATE_BATCH for a reused ID with other content, keeping the first', async () => {
    const { post, log } = setup()
    await post({ events: [note('n1', 'first')] })
    await expectError(
      await post({ events: [note('n1', 'second')] }),
      409,
      'PARTIAL_DUPLICATE_BATCH',
    )
    const [stored] = await log.session('s1').read()
    expect(stored?.payload).toEqual({ text: 'first' })
  })

  it('answers 413 for a body over the limit, before parsing it', async () => {
    const { post, log } = setup({ maxBodyBytes: 1024 })
    await expectError(
      await post({ events: [note('big', 'x'.repeat(2000))] }),
      413,
      'BODY_TOO_LARGE',
    )
    expect(await log.session('s1').head()).toBe(0)
  })

  it('answers 413 EVENT_TOO_LARGE for an event over the store limit', async () => {
    const { post } = setup()
    const text = Array.from({ length: 60_000 }, () => Math.random().toString(36).slice(2)).join('')
    await expectError(await post({ events: [note('huge', text)] }), 413, 'EVENT_TOO_LARGE')
  })

  it('answers 413 BATCH_TOO_LARGE for a 3.9 MB batch of poorly compressible events, as the DynamoDB store would', async () => {
    const { post, log } = setup()
    const events = Array.from({ length: 12 }, (_, i) =>
      note(`big-${i}`, randomBytes(247_000).toString('base64')),
    )
    const error = await expectError(await post({ events }), 413, 'BATCH_TOO_LARGE')
    expect(error).toMatchObject({ details: { limitBytes: MAX_APPEND_BYTES } })
    expect(await log.session('s1').head()).toBe(0)
  })

  it(`answers 400 INVALID_EVENT for a payload nested past ${MAX_PAYLOAD_DEPTH} levels, before checkPush or authorize walk it`, async () => {
    const walked: string[] = []
    const { log, fetch, base } = setup({ checkPush: () => walked.push('checkPush') })
    const deep = `${'['.repeat(5_000)}${']'.repeat(5_000)}`
    const response = await fetch(
      new Request(`${base}?sessionId=s1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"events":[{"id":"n1","type":"note.added","payload":{"text":"x","parts":${deep}}}]}`,
      }),
      { authorize: () => walked.push('authorize') > 0 },
    )
    const error = await expectError(response, 400, 'INVALID_EVENT')
    expect(error.message).toContain(`deeper than ${MAX_PAYLOAD_DEPTH} levels`)
    expect(walked).toEqual([])
    expect(await log.session('s1').head()).toBe(0)
  })

  it('answers 400 for IDs that pass for others or have no UTF-8 form, and stores nothing', async () => {
    const { fetch, base, post, log } = setup()
    // A bidi override (U+202E) and a zero-width space (U+200B) in the query.
    for (const sessionId of ['a%E2%80%AEb', 'a%E2%80%8Bb']) {
      await expectError(
        await post({ events: [note('x')] }, { sessionId }),
        400,
        'INVALID_SESSION_ID',
      )
    }
    // A lone surrogate only arrives in JSON, as an escape.
    const inBody = await fetch(
      new Request(base, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"sessionId":"s\\udc00","events":[{"type":"note.added","payload":{"text":"x"}}]}',
      }),
    )
    await expectError(inBody, 400, 'INVALID_SESSION_ID')
    await expectError(
      await post('{"events":[{"id":"n\\udc00","type":"note.added","payload":{"text":"x"}}]}'),
      400,
      'INVALID_EVENT',
    )
    expect(await log.session('s1').head()).toBe(0)
  })

  it('answers 415 for a body that is not JSON', async () => {
    const { post } = setup()
    await expectError(
      await post('events', { headers: { 'content-type': 'text/plain' } }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    )
  })

  it('answers 400 for a missing or invalid session ID', async () => {
    const { fetch, base, post } = setup()
    const missing = await fetch(
      new Request(base, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"events":[]}',
      }),
    )
    await expectError(missing, 400, 'MALFORMED_REQUEST')
    await expectError(
      await post({ events: [note('x')] }, { sessionId: 'a%0Ab' }),
      400,
      'INVALID_SESSION_ID',
    )
  })

  it('answers 403 when authorize says no, and stores nothing', async () => {
    const { log, fetch, base } = setup()
    const request = new Request(`${base}?sessionId=s1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ events: [note('n1')] }),
    })
    const seen: string[] = []
    const response = await fetch(request, {
      authorize: (operation) => {
        seen.push(operation.type)
        return operation.type !== 'push'
      },
    })
    await expectError(response, 403, 'FORBIDDEN')
    expect(seen).toEqual(['push'])
    expect(await log.session('s1').head()).toBe(0)
  })

  it('lets checkPush refuse events with its own typed error', async () => {
    const { post } = setup({
      checkPush: (events) => {
        if (events.some((event) => event.type.startsWith('ai.'))) {
          throw new HttpError(400, 'SERVER_EVENT_REFUSED', 'ai.* events are written by the server')
        }
      },
    })
    await expectError(
      await post({ events: [{ type: 'ai.generation.started', payload: {} }] }),
      400,
      'SERVER_EVENT_REFUSED',
    )
  })

  it('answers 405 for other methods', async () => {
    const { fetch, base } = setup()
    await expectError(
      await fetch(new Request(`${base}?sessionId=s1`, { method: 'DELETE' })),
      405,
      'METHOD_NOT_ALLOWED',
    )
  })

  it('answers 503 APPEND_CONTENDED when the store ran out of time queueing behind other appenders, so the client retries', async () => {
    const log = eventLog({
      store: {
        ...memoryEventStore(),
        append: (sessionId) => Promise.reject(new AppendContendedError(sessionId, 10_000)),
      },
    })
    const response = await logEndpoint({ log })(
      new Request('http://a2.test/?sessionId=s1', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ events: [note('n1')] }),
      }),
    )
    const error = await expectError(response, 503, 'APPEND_CONTENDED')
    expect(error.message).toContain('Try again')
  })

  it('answers 500 INTERNAL without the cause when the store fails', async () => {
    const log = eventLog({
      store: { ...memoryEventStore(), append: () => Promise.reject(new Error('secret detail')) },
    })
    const response = await logEndpoint({ log })(
      new Request('http://a2.test/?sessionId=s1', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ events: [note('n1')] }),
      }),
    )
    const error = await expectError(response, 500, 'INTERNAL')
    expect(error.message).not.toContain('secret')
  })
})

describe('GET: the SSE stream', () => {
  it('streams stored events with the log index as the SSE id, then live ones', async () => {
    const { post, get } = setup()
    await post({ events: [note('n1'), note('n2')] })
    const response = await get('sessionId=s1')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toContain('text/event-stream')
    setTimeout(() => void post({ events: [note('n3')] }), 30)
    const read = await readSse(response, { until: (r) => r.messages.length === 3 })
    expect(read.messages.map((m) => m.id)).toEqual(['1', '2', '3'])
    expect(read.messages.map((m) => (JSON.parse(m.data) as StoredEvent).id)).toEqual([
      'n1',
      'n2',
      'n3',
    ])
    expect(read.retry).toBe(1000)
  })

  it('resumes after Last-Event-ID, and after ?after=, with nothing twice and nothing skipped', async () => {
    const { post, get } = setup()
    await post({ events: [note('n1'), note('n2'), note('n3'), note('n4')] })
    const first = await readSse(await get('sessionId=s1'), {
      until: (r) => r.messages.length === 2,
    })
    const lastId = first.messages.at(-1)?.id as string
    const resumed = await readSse(await get('sessionId=s1', { 'last-event-id': lastId }), {
      until: (r) => r.messages.length === 2,
    })
    expect([...first.messages, ...resumed.messages].map((m) => m.id)).toEqual(['1', '2', '3', '4'])
    const byQuery = await readSse(await get('sessionId=s1&after=3'), {
      until: (r) => r.messages.length === 1,
    })
    expect(byQuery.messages.map((m) => m.id)).toEqual(['4'])
  })

  it('prefers Last-Event-ID over ?after=', async () => {
    const { post, get } = setup()
    await post({ events: [note('n1'), note('n2'), note('n3')] })
    const read = await readSse(await get('sessionId=s1&after=0', { 'last-event-id': '2' }), {
      until: (r) => r.messages.length === 1,
    })
    expect(read.messages.map((m) => m.id)).toEqual(['3'])
  })

  it("opens with a ': head N' comment: the index a client must reach to be caught up", async () => {
    const { post, get } = setup()
    await post({ events: [note('n1'), note('n2')] })
    const read = await readSse(await get('sessionId=s1&after=1'), {
      until: (r) => r.messages.length === 1,
    })
    expect(read.comments[0]?.trim()).toBe('head 2')
    const empty = await readSse(await get('sessionId=nobody'), {
      until: (r) => r.comments.length > 0,
    })
    expect(empty.comments[0]?.trim()).toBe('head 0')
  })

  it('names the event a resume starts after (\': after N "id"\', then its life) without sending it again, so a client can tell a different log', async () => {
    const { post, get } = setup()
    const [, second] = await post({ events: [note('n1'), note('n2'), note('n3')] })
      .then((response) => response.json() as Promise<{ events: StoredEvent[] }>)
      .then((body) => body.events)
    const read = await readSse(await get('sessionId=s1', { 'last-event-id': '2' }), {
      until: (r) => r.messages.length === 1,
    })
    expect(read.comments.map((comment) => comment.trim())).toEqual([
      'head 3',
      'after 2 "n2"',
      `life 2 ${JSON.stringify(second?.life)}`,
    ])
    expect(read.messages.map((m) => m.id)).toEqual(['3'])
    // From the start there is nothing to name.
    const fresh = await readSse(await get('sessionId=s1'), {
      until: (r) => r.messages.length === 3,
    })
    expect(fresh.comments.map((comment) => comment.trim())).toEqual(['head 3'])
  })

  it('sends heartbeat comments while idle', async () => {
    const { get } = setup({ stream: { heartbeatMs: 20 } })
    const read = await readSse(await get('sessionId=quiet'), {
      until: (r) => r.comments.filter((c) => c.trim() === 'heartbeat').length >= 2,
    })
    expect(read.comments.filter((c) => c.trim() === 'heartbeat').length).toBeGreaterThanOrEqual(2)
  })

  it('ends the response after maxDurationMs so the client reconnects', async () => {
    const { get } = setup({ stream: { maxDurationMs: 50 } })
    const read = await readSse(await get('sessionId=s1'), { timeoutMs: 2_000 })
    expect(read.ended).toBe(true)
  })

  it("ends a quiet stream with a `retry:` then a ': quiet' comment, after stream.quietMs with nothing appended", async () => {
    const { post, get } = setup({ stream: { quietMs: 60, quietRetryMs: 3_000 } })
    await post({ events: [note('n1')] })
    const started = Date.now()
    const body = await (await get('sessionId=s1')).text()
    expect(Date.now() - started).toBeGreaterThanOrEqual(55)
    expect(body.startsWith('retry: 1000\n\n: head 1\n\nid: 1\n')).toBe(true)
    expect(body.endsWith('\n\nretry: 3000\n\n: quiet\n\n')).toBe(true)
  })

  it('counts the quiet period from the last event: a session in use keeps its stream', async () => {
    const { post, get } = setup({ stream: { quietMs: 150 } })
    const response = await get('sessionId=s1')
    const pushes = (async () => {
      for (let n = 1; n <= 6; n++) {
        await new Promise((resolve) => setTimeout(resolve, 60))
        await post({ events: [note(`n${n}`)] })
      }
    })()
    const read = await readSse(response, { timeoutMs: 3_000 })
    await pushes
    expect(read.ended).toBe(true)
    expect(read.messages.map((m) => m.id)).toEqual(['1', '2', '3', '4', '5', '6'])
    expect(read.comments.at(-1)?.trim()).toBe('quiet')
  })

  it('&follow keeps a stream open through a quiet spell (for curl, which does not reconnect), heartbeats and all', async () => {
    const { post, get } = setup({ stream: { quietMs: 40, heartbeatMs: 20 } })
    await post({ events: [note('n1')] })
    const response = await get('sessionId=s1&follow')
    const late = (async () => {
      // Several quiet periods: a stream without &follow has ended by now.
      await new Promise((resolve) => setTimeout(resolve, 200))
      await post({ events: [note('n2')] })
    })()
    const read = await readSse(response, {
      until: (r) => r.messages.length === 2,
      timeoutMs: 3_000,
    })
    await late
    expect(read.messages.map((m) => m.id)).toEqual(['1', '2'])
    expect(read.comments.map((comment) => comment.trim())).not.toContain('quiet')
    expect(read.comments.map((comment) => comment.trim())).toContain('heartbeat')
    // Without it, the same wait ends the stream first.
    const plain = await readSse(await get('sessionId=s1'), { timeoutMs: 3_000 })
    expect(plain.ended).toBe(true)
    expect(plain.comments.at(-1)?.trim()).toBe('quiet')
  })

  it('&follow still ends at maxDurationMs, so a platform limit never cuts it', async () => {
    const { get } = setup({ stream: { quietMs: 20, maxDurationMs: 150 } })
    const started = Date.now()
    const read = await readSse(await get('sessionId=s1&follow'), { timeoutMs: 3_000 })
    expect(read.ended).toBe(true)
    expect(Date.now() - started).toBeGreaterThanOrEqual(140)
    expect(read.comments.map((comment) => comment.trim())).not.toContain('quiet')
  })

  it('a stream resumed after a quiet end gets what was appended since, nothing twice', async () => {
    const { post, get } = setup({ stream: { quietMs: 30 } })
    await post({ events: [note('n1')] })
    const first = await readSse(await get('sessionId=s1'), { timeoutMs: 2_000 })
    expect(first.ended).toBe(true)
    await post({ events: [note('n2')] })
    const lastId = first.messages.at(-1)?.id as string
    const resumed = await readSse(await get('sessionId=s1', { 'last-event-id': lastId }), {
      timeoutMs: 2_000,
    })
    expect([...first.messages, ...resumed.messages].map((m) => m.id)).toEqual(['1', '2'])
  })

  it('answers ?head with the session head and its life as JSON: no stream, no wake-up', async () => {
    const reads: string[] = []
    const store = memoryEventStore()
    // A store without a resting head of its own: head(), then the last event's life.
    const { restingHead: _own, ...plain } = store
    const counted = {
      ...plain,
      head: (sessionId: string) => {
        reads.push('head')
        return store.head(sessionId)
      },
      read: (...args: Parameters<typeof store.read>) => {
        reads.push('read')
        return store.read(...args)
      },
      tail: (...args: Parameters<typeof store.tail>) => {
        reads.push('tail')
        return store.tail(...args)
      },
    }
    const log = eventLog({ store: counted, contract: notes })
    const woken: string[] = []
    const fetch = logEndpoint({ log, onRead: async (sessionId) => void woken.push(sessionId) })
    await log.session('s1').append([note('n1'), note('n2')])
    const authorized: string[] = []
    const response = await fetch(new Request('http://a2.test/api/agent?sessionId=s1&head'), {
      authorize: (operation) => authorized.push(operation.type) > 0,
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toContain('application/json')
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(await response.json()).toEqual({ head: 2, life: expect.any(String) })
    expect(reads).toEqual(['head', 'read'])
    expect(authorized).toEqual(['read'])
    expect(woken).toEqual([])
    const empty = await fetch(new Request('http://a2.test/api/agent?sessionId=nobody&head='))
    expect(await empty.json()).toEqual({ head: 0 })
  })

  it("answers a head check with the store's resting head where it has one (on DynamoDB the head item alone, one read)", async () => {
    const store = memoryEventStore()
    const reads: string[] = []
    const resting: EventStore = Object.assign(Object.create(store) as EventStore, {
      head: (sessionId: string) => {
        reads.push('head')
        return store.head(sessionId)
      },
      restingHead: async () => {
        reads.push('restingHead')
        return { index: 1, life: 'L1' }
      },
    })
    const log = eventLog({ store: resting, contract: notes })
    await log.session('s1').append([note('n1'), note('n2')])
    const fetch = logEndpoint({ log })
    const response = await fetch(new Request('http://a2.test/api/agent?sessionId=s1&head'))
    // With its life: a tab that applied as many events of an erased life is behind.
    expect(await response.json()).toEqual({ head: 1, life: 'L1' })
    expect(reads).toEqual(['restingHead'])
  })

  it('answers 403 for a head check authorize refuses, and 400 for a bad session ID', async () => {
    const { fetch, base, get } = setup()
    const response = await fetch(new Request(`${base}?sessionId=s1&head`), {
      authorize: (op) => op.type !== 'read',
    })
    await expectError(response, 403, 'FORBIDDEN')
    await expectError(await get('sessionId=a%0Ab&head'), 400, 'INVALID_SESSION_ID')
    await expectError(await get('head'), 400, 'MALFORMED_REQUEST')
  })

  it('answers 400 for a resume index that is not a log index', async () => {
    const { get } = setup()
    await expectError(
      await get('sessionId=s1', { 'last-event-id': 'abc' }),
      400,
      'MALFORMED_REQUEST',
    )
    await expectError(await get('sessionId=s1&after=-1'), 400, 'MALFORMED_REQUEST')
  })

  it('answers 403 for a read authorize refuses', async () => {
    const { fetch, base } = setup()
    const response = await fetch(new Request(`${base}?sessionId=s1`), {
      authorize: (op) => op.type !== 'read',
    })
    await expectError(response, 403, 'FORBIDDEN')
  })
})
