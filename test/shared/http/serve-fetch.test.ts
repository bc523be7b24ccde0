import { afterEach, describe, expect, it } from 'vitest'
import { logEndpoint } from '../../../shared/http/log-endpoint.ts'
import { eventLog } from '../../../shared/index.ts'
import { type LocalServer, serveFetch } from '../../../shared/node/serve.ts'
import { memoryEventStore } from '../../../shared/stores/memory/memory-event-store.ts'
import { readSse } from '../../support/sse.ts'

let server: LocalServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

describe('the log endpoint over a real HTTP server', () => {
  it('streams a push back to a reader over SSE, and ends the tail when the reader leaves', async () => {
    const store = memoryEventStore()
    let openTails = 0
    const counted = {
      ...store,
      tail: (sessionId: string, options?: Parameters<typeof store.tail>[1]) => {
        const inner = store.tail(sessionId, options)
        return {
          async *[Symbol.asyncIterator]() {
            openTails++
            try {
              yield* inner
            } finally {
              openTails--
            }
          },
        }
      },
    }
    server = await serveFetch(logEndpoint({ log: eventLog({ store: counted }) }))
    const reader = new AbortController()
    const stream = await fetch(`${server.url}/?sessionId=live`, { signal: reader.signal })
    const pushed = await fetch(`${server.url}/?sessionId=live`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        events: [{ id: 'hello', type: 'note.added', payload: { text: 'hi' } }],
      }),
    })
    expect(pushed.status).toBe(200)
    const read = await readSse(stream, { until: (r) => r.messages.length === 1 })
    expect(JSON.parse(read.messages[0]?.data ?? '{}')).toMatchObject({ id: 'hello', index: 1 })
    expect(openTails).toBe(1)
    reader.abort()
    await expect.poll(() => openTails, { timeout: 2_000 }).toBe(0)
  })
})
