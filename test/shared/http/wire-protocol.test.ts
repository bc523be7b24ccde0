import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { type Authorize, logEndpoint, type Operation } from '../../../shared/http/log-endpoint.ts'
import { requestProtocol } from '../../../shared/http/request-protocol.ts'
import { contract, eventLog, hasA2Code } from '../../../shared/index.ts'
import { WIRE_PROTOCOL } from '../../../shared/log/wire-protocol.ts'
import { memoryEventStore } from '../../../shared/stores/memory/memory-event-store.ts'
import { readSse } from '../../support/sse.ts'

const notes = contract({
  name: 'notes',
  events: { 'note.added': z.object({ text: z.string() }) },
})

const base = 'http://a2.test/api/agent'
const note = (id: string) => ({ id, type: 'note.added', payload: { text: id } })

function setup(authorize?: Authorize) {
  const log = eventLog({ store: memoryEventStore(), contract: notes })
  const fetch = logEndpoint({ log, stream: { quietMs: 50 } })
  const options = authorize ? { authorize } : {}
  const post = (headers: Record<string, string> = {}, query = '') =>
    fetch(
      new Request(`${base}?sessionId=s1${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ events: [note(`n${Math.random()}`)] }),
      }),
      options,
    )
  const get = (query: string, headers: Record<string, string> = {}) =>
    fetch(new Request(`${base}?sessionId=s1${query}`, { headers }), options)
  return { log, post, get }
}

async function refusal(response: Response) {
  expect(response.status).toBe(400)
  const body = (await response.json()) as {
    error: { code: string; message: string; details?: unknown }
  }
  return body.error
}

describe('the wire protocol: answered on every response', () => {
  it('names the server protocol in a2-protocol on a push, a stream, a head check and an error', async () => {
    const { post, get } = setup()
    const pushed = await post({ 'a2-protocol': '1' })
    const stream = await get('')
    await readSse(stream)
    const head = await get('&head')
    const error = await get('&after=x')
    for (const response of [pushed, stream, head, error]) {
      expect(response.headers.get('a2-protocol')).toBe(String(WIRE_PROTOCOL))
    }
    expect(error.status).toBe(400)
  })
})

describe('the wire protocol: a request that names none is a client from before, served as protocol 1', () => {
  it('stores a push without a2-protocol, and authorize sees protocol 1', async () => {
    const seen: Operation[] = []
    const { post, log } = setup((operation) => {
      seen.push(operation)
      return true
    })
    expect((await post()).status).toBe(200)
    expect(await log.session('s1').head()).toBe(1)
    expect(seen.map((operation) => operation.protocol)).toEqual([1])
  })
})

describe('the wire protocol: a command for a protocol the server does not speak is refused and writes nothing', () => {
  it('refuses a push written for a newer protocol with 400 PROTOCOL_MISMATCH, its details and a reason to reload', async () => {
    const { post, log } = setup()
    const response = await post({ 'a2-protocol': String(WIRE_PROTOCOL + 1) })
    expect(response.headers.get('a2-protocol')).toBe(String(WIRE_PROTOCOL))
    const error = await refusal(response)
    expect(error.code).toBe('PROTOCOL_MISMATCH')
    expect(error.details).toEqual({ client: WIRE_PROTOCOL + 1, server: WIRE_PROTOCOL, oldest: 1 })
    expect(error.message).toMatch(/reload/)
    expect(await log.session('s1').head()).toBe(0)
  })

  it('refuses it named in ?protocol= too (a plain EventSource), and refuses a stream the same way', async () => {
    const { post, get, log } = setup()
    const pushed = await refusal(await post({}, `&protocol=${WIRE_PROTOCOL + 1}`))
    expect(pushed.code).toBe('PROTOCOL_MISMATCH')
    const streamed = await get('', { 'a2-protocol': String(WIRE_PROTOCOL + 7) })
    expect(streamed.headers.get('content-type')).toContain('application/json')
    expect((await refusal(streamed)).code).toBe('PROTOCOL_MISMATCH')
    expect((await refusal(await get('&head', { 'a2-protocol': '99' }))).code).toBe(
      'PROTOCOL_MISMATCH',
    )
    expect(await log.session('s1').head()).toBe(0)
  })

  it('refuses before authorize runs: a page of another deploy is told to reload, whoever it is', async () => {
    let asked = 0
    const { post } = setup(() => {
      asked++
      return false
    })
    expect((await refusal(await post({ 'a2-protocol': '99' }))).code).toBe('PROTOCOL_MISMATCH')
    expect(asked).toBe(0)
  })

  it('answers a header that is no protocol version (not a positive integer) with 400 MALFORMED_REQUEST', async () => {
    const { post, log } = setup()
    for (const bad of ['0', '-1', '1.5', 'one', '']) {
      expect((await refusal(await post({ 'a2-protocol': bad }))).code).toBe('MALFORMED_REQUEST')
    }
    expect(await log.session('s1').head()).toBe(0)
  })
})

describe('requestProtocol: the range a server speaks', () => {
  const asked = (protocol: string) => {
    const url = new URL(`${base}?sessionId=s1`)
    return requestProtocol(new Request(url, { headers: { 'a2-protocol': protocol } }), url, {
      oldest: 2,
      newest: 3,
    })
  }

  it('serves every protocol from the oldest it still speaks to its newest', () => {
    expect(asked('2')).toBe(2)
    expect(asked('3')).toBe(3)
  })

  it('refuses a protocol the server no longer speaks, naming both ends of its range', () => {
    let thrown: unknown
    try {
      asked('1')
    } catch (error) {
      thrown = error
    }
    expect(hasA2Code(thrown, 'PROTOCOL_MISMATCH')).toBe(true)
    if (!hasA2Code(thrown, 'PROTOCOL_MISMATCH')) return
    expect(thrown.details).toEqual({ client: 1, server: 3, oldest: 2 })
    expect(thrown.message).toBe(
      'This page was written for protocol 1 and the server speaks 2 to 3: reload the page',
    )
  })
})
