import { describe, expect, it } from 'vitest'
import { skewWatch } from '../../../shared/client/server-skew.ts'
import { WIRE_PROTOCOL } from '../../../shared/log/wire-protocol.ts'

/** A server that answers each request with the next response, and keeps what it was sent. */
function server(...answers: (() => Response)[]) {
  const sent: Headers[] = []
  const fetch: typeof globalThis.fetch = async (_input, init) => {
    sent.push(new Headers(init?.headers))
    const next = answers.shift()
    if (!next) throw new Error('No answer left')
    return next()
  }
  return { fetch, sent }
}

const answer =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  () =>
    Response.json(body, { status, headers })

const mismatch = answer(
  400,
  {
    error: {
      code: 'PROTOCOL_MISMATCH',
      message: 'This page was written for protocol 1 and the server speaks 2 to 3: reload the page',
      details: { client: 1, server: 3, oldest: 2 },
    },
  },
  { 'a2-protocol': '3' },
)

describe("the client's view of its server", () => {
  it("names this build's protocol on every request, beside the caller's own headers", async () => {
    const { fetch, sent } = server(answer(200, {}), answer(200, {}))
    const watch = skewWatch(fetch)
    await watch.fetch('http://a2.test/api/agent', { headers: { authorization: 'Bearer t' } })
    await watch.fetch('http://a2.test/api/agent', { method: 'POST' })
    expect(sent.map((headers) => headers.get('a2-protocol'))).toEqual([
      String(WIRE_PROTOCOL),
      String(WIRE_PROTOCOL),
    ])
    expect(sent[0]?.get('authorization')).toBe('Bearer t')
  })

  it("keeps the server's newest protocol and its deployment version from its answers, and tells listeners of a change only", async () => {
    const { fetch } = server(
      answer(200, {}),
      answer(200, {}, { 'a2-protocol': '2', 'a2-version': 'v42' }),
      answer(200, {}, { 'a2-protocol': '2', 'a2-version': 'v42' }),
    )
    const watch = skewWatch(fetch)
    let changes = 0
    watch.listen(() => changes++)
    await watch.fetch('http://a2.test/api/agent')
    expect(watch.current().server).toEqual({ protocol: null, version: null })
    await watch.fetch('http://a2.test/api/agent')
    const seen = watch.current()
    await watch.fetch('http://a2.test/api/agent')
    expect(watch.current()).toBe(seen)
    expect(seen.server).toEqual({ protocol: 2, version: 'v42' })
    expect(seen.reload).toBeNull()
    expect(changes).toBe(1)
  })

  it('says the page must reload once the server refused its protocol, and keeps saying it', async () => {
    const { fetch } = server(
      answer(400, { error: { code: 'MALFORMED_REQUEST', message: 'Name the session' } }),
      mismatch,
      answer(200, {}, { 'a2-protocol': '3' }),
    )
    const watch = skewWatch(fetch)
    await watch.fetch('http://a2.test/api/agent')
    expect(watch.current().reload).toBeNull()
    const refused = await watch.fetch('http://a2.test/api/agent')
    // The caller still reads the refusal itself.
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
      'PROTOCOL_MISMATCH',
    )
    const reload = {
      code: 'PROTOCOL_MISMATCH',
      message: 'This page was written for protocol 1 and the server speaks 2 to 3: reload the page',
      client: 1,
      server: 3,
      oldest: 2,
    }
    expect(watch.current().reload).toEqual(reload)
    await watch.fetch('http://a2.test/api/agent')
    expect(watch.current().reload).toEqual(reload)
  })
})
