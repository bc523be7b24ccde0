import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { allOf } from '../../../shared/http/all-of.ts'
import { logEndpoint, type OpenedSession } from '../../../shared/http/log-endpoint.ts'
import { sessionCapability } from '../../../shared/http/session-capability.ts'
import { contract, eventLog } from '../../../shared/index.ts'
import { memoryEventStore } from '../../../shared/stores/memory/memory-event-store.ts'

const KEY = 'k'.repeat(32)
const notes = contract({
  name: 'notes',
  events: { 'note.added': z.object({ text: z.string() }) },
})
const note = (id: string) => ({ id, type: 'note.added', payload: { text: id } })
const base = 'http://a2.test/api/agent'

function setup(clock = { now: 1_700_000_000_000 }) {
  const log = eventLog({ store: memoryEventStore(), contract: notes })
  const sessions = sessionCapability({ key: KEY, ttlSeconds: 60, now: () => clock.now })
  const fetch = logEndpoint({ log })
  const options = { authorize: sessions.authorize, openSession: sessions.openSession }
  const open = async (): Promise<OpenedSession> => {
    const response = await fetch(
      new Request(base, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
      options,
    )
    expect(response.status).toBe(201)
    return (await response.json()) as OpenedSession
  }
  const post = (sessionId: string, headers: Record<string, string> = {}) =>
    fetch(
      new Request(`${base}?sessionId=${encodeURIComponent(sessionId)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ events: [note(`n-${Math.random()}`)] }),
      }),
      options,
    )
  const get = (query: string, headers: Record<string, string> = {}) =>
    fetch(new Request(`${base}?${query}`, { headers }), options)
  return { log, sessions, fetch, options, open, post, get, clock }
}

async function expectRefused(response: Response, status: number, code: string) {
  expect(response.status).toBe(status)
  const body = (await response.json()) as { error: { code: string; message: string } }
  expect(body.error.code).toBe(code)
  expect(body.error.message.length).toBeGreaterThan(0)
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

/** A token's four parts: version, session, expiry, signature. */
const partsOf = (token: string) => token.split('.') as [string, string, string, string]

describe('a session capability', () => {
  it('POST {} opens a session the server names, with a token that expires', async () => {
    const { open, clock } = setup()
    const opened = await open()
    expect(opened.sessionId).toMatch(/^s-[0-9a-f-]{36}$/)
    expect(opened.token.length).toBeGreaterThan(40)
    expect(Date.parse(opened.expiresAt)).toBe(clock.now + 60_000)
    expect((await open()).sessionId).not.toBe(opened.sessionId)
  })

  it('the token opens its session: a push and a stream (header, or ?token= for an EventSource)', async () => {
    const { open, post, get, log } = setup()
    const { sessionId, token } = await open()
    expect((await post(sessionId, bearer(token))).status).toBe(200)
    const stream = await get(`sessionId=${sessionId}`, bearer(token))
    expect(stream.status).toBe(200)
    await stream.body?.cancel()
    const byQuery = await get(`sessionId=${sessionId}&token=${encodeURIComponent(token)}`)
    expect(byQuery.status).toBe(200)
    await byQuery.body?.cancel()
    expect(await log.session(sessionId).head()).toBe(1)
  })

  it('refuses a request without a token with 401 TOKEN_MISSING, and writes nothing', async () => {
    const { open, post, get, log } = setup()
    const { sessionId } = await open()
    await expectRefused(await post(sessionId), 401, 'TOKEN_MISSING')
    await expectRefused(await get(`sessionId=${sessionId}`), 401, 'TOKEN_MISSING')
    expect(await log.session(sessionId).head()).toBe(0)
  })

  it("refuses another session's token with 403 FORBIDDEN, and writes nothing", async () => {
    const { open, post, get, log } = setup()
    const mine = await open()
    const theirs = await open()
    await post(theirs.sessionId, bearer(theirs.token))
    await expectRefused(await post(theirs.sessionId, bearer(mine.token)), 403, 'FORBIDDEN')
    await expectRefused(
      await get(`sessionId=${theirs.sessionId}`, bearer(mine.token)),
      403,
      'FORBIDDEN',
    )
    expect(await log.session(theirs.sessionId).head()).toBe(1)
  })

  it('refuses an expired token with 401 TOKEN_EXPIRED, and writes nothing', async () => {
    const { open, post, log, clock } = setup()
    const { sessionId, token } = await open()
    clock.now += 60_000
    await expectRefused(await post(sessionId, bearer(token)), 401, 'TOKEN_EXPIRED')
    expect(await log.session(sessionId).head()).toBe(0)
  })

  it('refuses a malformed, tampered or foreign-key token with 401 TOKEN_INVALID', async () => {
    const { open, post, log } = setup()
    const { sessionId, token } = await open()
    const [version, session, expires, signature] = partsOf(token)
    const later = `${version}.${session}.${Number(expires) + 3600}.${signature}`
    const other = await sessionCapability({ key: 'o'.repeat(32) }).mint(sessionId)
    for (const bad of ['nonsense', later, other.token, `${token}x`]) {
      await expectRefused(await post(sessionId, bearer(bad)), 401, 'TOKEN_INVALID')
    }
    await expectRefused(await post(sessionId, { authorization: 'Basic abc' }), 401, 'TOKEN_INVALID')
    expect(await log.session(sessionId).head()).toBe(0)
  })

  it('accepts only the canonical spelling of a token: no padding, no standard alphabet, no stray low bits', async () => {
    const { open, post, log } = setup()
    // The standard alphabet differs from base64url only in `-` and `_`: a
    // signature without either spells the same in both (about one in four
    // do), so open sessions until one has one.
    let opened = await open()
    for (let tries = 0; !/[-_]/.test(partsOf(opened.token)[3]) && tries < 50; tries++) {
      opened = await open()
    }
    const { sessionId, token } = opened
    const [version, session, expires, signature] = partsOf(token)
    expect(signature).toMatch(/[-_]/)
    // 32 bytes are 43 base64url characters: the last carries 2 unused bits.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    const last = alphabet.indexOf(signature.at(-1) as string)
    const lowBits = `${signature.slice(0, -1)}${alphabet[last ^ 1]}`
    const standard = Buffer.from(signature, 'base64url').toString('base64')
    const spellings = [
      `${signature}=`,
      lowBits,
      standard.replace(/=+$/, ''),
      standard,
      `${session}=`,
    ]
    // Each decodes to the same bytes as the real signature (or session), so
    // only the spelling check can refuse it.
    expect(Buffer.from(lowBits, 'base64url').equals(Buffer.from(signature, 'base64url'))).toBe(true)
    for (const spelling of spellings) {
      const bad =
        spelling === `${session}=`
          ? `${version}.${spelling}.${expires}.${signature}`
          : `${version}.${session}.${expires}.${spelling}`
      await expectRefused(await post(sessionId, bearer(bad)), 401, 'TOKEN_INVALID')
    }
    expect((await post(sessionId, bearer(token))).status).toBe(200)
    expect(await log.session(sessionId).head()).toBe(1)
  })

  it('says who is asking before what is wrong with what they sent: 401 before 400 or 413', async () => {
    const { fetch, options, open, log } = setup()
    const { sessionId, token } = await open()
    const send = (
      body: string,
      headers: Record<string, string> = {},
      query = `?sessionId=${sessionId}`,
    ) =>
      fetch(
        new Request(`${base}${query}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body,
        }),
        options,
      )
    const malformed = ['{', '[]', '{"events": 3}', '{"events": []}', 'x'.repeat(5 * 1024 * 1024)]
    for (const body of malformed) {
      await expectRefused(await send(body), 401, 'TOKEN_MISSING')
      await expectRefused(await send(body, bearer('nonsense')), 401, 'TOKEN_INVALID')
    }
    await expectRefused(await send('{"events": []}', {}, ''), 401, 'TOKEN_MISSING')
    await expectRefused(
      await fetch(new Request(`${base}?sessionId=${sessionId}&after=-1`), options),
      401,
      'TOKEN_MISSING',
    )
    // With its token, the same body is answered for what it is.
    await expectRefused(await send('{', bearer(token)), 400, 'MALFORMED_JSON')
    await expectRefused(await send('{"events": []}', bearer(token)), 400, 'MALFORMED_REQUEST')
    // And a stranger may still open a session.
    expect((await send('{}', {}, '')).status).toBe(201)
    expect(await log.session(sessionId).head()).toBe(0)
  })

  it("checks a request's token once, though authenticate and authorize both ask", async () => {
    let reads = 0
    const clock = { now: 1_700_000_000_000 }
    const sessions = sessionCapability({
      key: KEY,
      now: () => {
        reads++
        return clock.now
      },
    })
    const { token } = await sessions.mint('s1')
    reads = 0
    const fetch = logEndpoint({ log: eventLog({ store: memoryEventStore(), contract: notes }) })
    const response = await fetch(
      new Request(`${base}?sessionId=s1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(token) },
        body: JSON.stringify({ events: [note('n1')] }),
      }),
      { authorize: sessions.authorize },
    )
    expect(response.status).toBe(200)
    // One expiry check: the token was verified once for the two questions.
    expect(reads).toBe(1)
  })

  it('a token minted for a session ID the client chose opens only that session', async () => {
    const { sessions, post } = setup()
    const { token } = await sessions.mint('ticket-42')
    expect((await post('ticket-42', bearer(token))).status).toBe(200)
    await expectRefused(await post('ticket-43', bearer(token)), 403, 'FORBIDDEN')
  })

  it('reads its key once, and refuses a key shorter than 32 bytes', async () => {
    let reads = 0
    const sessions = sessionCapability({
      key: async () => {
        reads++
        return KEY
      },
    })
    const { token } = await sessions.mint('s1')
    const request = new Request(`${base}?sessionId=s1`, { headers: bearer(token) })
    await sessions.verify(request, 's1')
    await sessions.verify(request, 's1')
    expect(reads).toBe(1)
    await expect(sessionCapability({ key: 'short' }).mint('s1')).rejects.toThrow(/at least 32/)
  })

  it('without openSession, POST {} is still a 400', async () => {
    const { fetch } = setup()
    const response = await fetch(
      new Request(base, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
    )
    await expectRefused(response, 400, 'MALFORMED_REQUEST')
  })
})

describe('allOf', () => {
  it("composes the capability with the app's own policy: both must allow", async () => {
    const { sessions, fetch, open, log } = setup()
    const { sessionId, token } = await open()
    const notesOnly = allOf(sessions.authorize, (operation) => operation.type === 'read')
    const push = new Request(`${base}?sessionId=${sessionId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(token) },
      body: JSON.stringify({ events: [note('n1')] }),
    })
    await expectRefused(await fetch(push, { authorize: notesOnly }), 403, 'FORBIDDEN')
    const anonymous = new Request(`${base}?sessionId=${sessionId}`)
    await expectRefused(await fetch(anonymous, { authorize: notesOnly }), 401, 'TOKEN_MISSING')
    expect(await log.session(sessionId).head()).toBe(0)
  })
})
