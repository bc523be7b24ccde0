import { describe, expect, it } from 'vitest'
import { verifySession } from '../../../../functions/cli/verify/verify-session.ts'
import { logEndpoint } from '../../../../shared/http/log-endpoint.ts'
import { sessionCapability } from '../../../../shared/http/session-capability.ts'
import { eventLog } from '../../../../shared/index.ts'
import { memoryEventStore } from '../../../../shared/stores/memory/memory-event-store.ts'

const url = 'https://api.example/prod/agent'
const endpoint = logEndpoint({ log: eventLog({ store: memoryEventStore() }) })
const sessions = sessionCapability({ key: 'a-verify-test-key-of-32-bytes-or-more' })
const guarded: typeof fetch = (input, init) =>
  endpoint(new Request(input, init), {
    authorize: sessions.authorize,
    openSession: sessions.openSession,
  })
const open: typeof fetch = (input, init) => endpoint(new Request(input, init))

describe('npm run verify against an API that checks session tokens', () => {
  it('opens its session with POST {} and carries the token, replacing any authorization header', async () => {
    const { sessionId, target } = await verifySession(
      {
        url,
        headers: [
          ['authorization', 'Bearer old'],
          ['x-team', 'ops'],
        ],
        fetch: guarded,
      },
      'a2-verify-x',
    )
    expect(sessionId).toMatch(/^s-/)
    expect(target.headers.filter(([name]) => name === 'authorization')).toHaveLength(1)
    expect(target.headers).toContainEqual(['x-team', 'ops'])
    const stream = await guarded(`${url}?sessionId=${sessionId}`, {
      headers: target.headers as [string, string][],
    })
    expect(stream.status).toBe(200)
    await stream.body?.cancel()
  })

  it('keeps the named session and the target as given where the API opens no sessions', async () => {
    const target = { url, headers: [] as [string, string][], fetch: open }
    expect(await verifySession(target, 'a2-verify-x')).toEqual({ sessionId: 'a2-verify-x', target })
  })
})
