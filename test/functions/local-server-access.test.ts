import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startLocalServer } from '../../functions/local/local-server.ts'
import { inputs } from '../../shared/ai.ts'
import type { OpenedSession } from '../../shared/http/log-endpoint.ts'
import { sessionCapability } from '../../shared/http/session-capability.ts'
import { memoryEventStore } from '../../shared/stores/memory/memory-event-store.ts'
import type { GatewayDouble } from '../../shared/testing/gateway-double.ts'
import { until } from '../support/agent-log.ts'
import { exampleGateway } from '../support/example-gateway.ts'

// `npm start` as a stranger meets it: every session needs the token the
// server minted for it, on the agent's GET and POST and on /api/state. Its
// model is the example's model ID, through the Gateway double.
const KEY = 'a-local-test-key-of-at-least-32-bytes'
const store = memoryEventStore()
let gateway: GatewayDouble
let uninstall: (() => void) | undefined
let server: Awaited<ReturnType<typeof startLocalServer>>

beforeAll(async () => {
  gateway = await exampleGateway()
  uninstall = gateway.install()
  server = await startLocalServer({
    env: { AI_GATEWAY_API_KEY: 'test-gateway-key', A2_GATEWAY_URL: gateway.url },
    store,
    sessionKey: KEY,
    webRoot: '/nonexistent',
  })
})
afterAll(async () => {
  await server?.close()
  uninstall?.()
  await gateway?.close()
})

const api = () => `${server.url}/api/agent`
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const message = (id: string) =>
  JSON.stringify({
    events: inputs.message({ id, role: 'user', parts: [{ type: 'text', text: 'hello' }] }),
  })
const push = (sessionId: string, headers: Record<string, string> = {}, id = crypto.randomUUID()) =>
  fetch(`${api()}?sessionId=${sessionId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: message(id),
  })

async function open(): Promise<OpenedSession> {
  const response = await fetch(api(), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  })
  expect(response.status).toBe(201)
  return (await response.json()) as OpenedSession
}

/** Pushes a message and waits for its turn to end, so the log holds still. */
async function settledSession(): Promise<OpenedSession & { head: number }> {
  const opened = await open()
  expect((await push(opened.sessionId, bearer(opened.token))).status).toBe(200)
  const head = await until(async () => {
    const response = await fetch(`${server.url}/api/state?sessionId=${opened.sessionId}`, {
      headers: bearer(opened.token),
    })
    const { state, index } = (await response.json()) as {
      state: { active?: unknown }
      index: number
    }
    return index > 1 && !state.active ? index : false
  }, 10_000)
  expect(await store.head(opened.sessionId)).toBe(head)
  // The turn ended with an answer from the double, not a failure.
  expect(gateway.calls.length).toBeGreaterThan(0)
  return { ...opened, head }
}

async function expectRefused(response: Response, status: number, code: string): Promise<void> {
  expect(response.status).toBe(status)
  expect(response.headers.get('content-type')).toContain('application/json')
  expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code)
}

describe('npm start: sessions that strangers cannot open', () => {
  it('opens a session with POST {}, and its token reads and writes it', async () => {
    const { sessionId, token } = await open()
    expect((await push(sessionId, bearer(token))).status).toBe(200)
    const stream = await fetch(`${api()}?sessionId=${sessionId}`, { headers: bearer(token) })
    expect(stream.status).toBe(200)
    expect(stream.headers.get('content-type')).toContain('text/event-stream')
    await stream.body?.cancel()
    const state = await fetch(`${server.url}/api/state?sessionId=${sessionId}`, {
      headers: bearer(token),
    })
    expect(state.status).toBe(200)
    expect(((await state.json()) as { index: number }).index).toBeGreaterThan(0)
  })

  it('refuses a request without a token (401), with the log head unchanged', async () => {
    const { sessionId, head } = await settledSession()
    await expectRefused(await push(sessionId), 401, 'TOKEN_MISSING')
    await expectRefused(await fetch(`${api()}?sessionId=${sessionId}`), 401, 'TOKEN_MISSING')
    await expectRefused(
      await fetch(`${server.url}/api/state?sessionId=${sessionId}`),
      401,
      'TOKEN_MISSING',
    )
    expect(await store.head(sessionId)).toBe(head)
  })

  it("refuses another session's token (403), with the log head unchanged", async () => {
    const mine = await open()
    const theirs = await settledSession()
    const { head } = theirs
    await expectRefused(await push(theirs.sessionId, bearer(mine.token)), 403, 'FORBIDDEN')
    await expectRefused(
      await fetch(`${api()}?sessionId=${theirs.sessionId}&token=${mine.token}`),
      403,
      'FORBIDDEN',
    )
    await expectRefused(
      await fetch(`${server.url}/api/state?sessionId=${theirs.sessionId}`, {
        headers: bearer(mine.token),
      }),
      403,
      'FORBIDDEN',
    )
    expect(await store.head(theirs.sessionId)).toBe(head)
  })

  it('refuses an expired token (401), with the log head unchanged', async () => {
    const { sessionId, head } = await settledSession()
    const yesterday = sessionCapability({ key: KEY, now: () => Date.now() - 2 * 86_400_000 })
    const expired = (await yesterday.mint(sessionId)).token
    await expectRefused(await push(sessionId, bearer(expired)), 401, 'TOKEN_EXPIRED')
    expect(await store.head(sessionId)).toBe(head)
  })

  it('refuses a token signed with another key (401): a restart with a new key ends old tokens', async () => {
    const { sessionId } = await open()
    const other = sessionCapability({ key: 'another-key-of-at-least-32-bytes!!' })
    await expectRefused(
      await push(sessionId, bearer((await other.mint(sessionId)).token)),
      401,
      'TOKEN_INVALID',
    )
    expect(await store.head(sessionId)).toBe(0)
  })
})
