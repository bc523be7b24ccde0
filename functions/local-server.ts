// `npm start`: a local A2 server on the embedded default (in-memory store,
// in-process dispatch). Until the agent runtime lands it serves the session
// event log itself at /api/agent.

import { logEndpoint } from '../shared/http/log-endpoint.ts'
import { eventLog } from '../shared/index.ts'
import { serveFetch } from '../shared/node/serve.ts'
import { memoryEventStore } from '../shared/stores/memory/memory-event-store.ts'

const port = Number(process.env.PORT ?? 3000)
const log = eventLog({ store: memoryEventStore() })
const endpoint = logEndpoint({ log })

const server = await serveFetch(
  async (request) => {
    const { pathname } = new URL(request.url)
    if (pathname === '/api/agent') return endpoint(request)
    return Response.json(
      { error: { code: 'NOT_FOUND', message: `Nothing at ${pathname}; the API is at /api/agent` } },
      { status: 404 },
    )
  },
  { port, hostname: process.env.HOST ?? '127.0.0.1' },
)

console.log(`a2-aws local server (memory store) on ${server.url}/api/agent
  stream:  curl -N '${server.url}/api/agent?sessionId=demo'
  push:    curl -X POST '${server.url}/api/agent?sessionId=demo' -H 'content-type: application/json' \\
             -d '{"events":[{"type":"note.added","payload":{"text":"hello"}}]}'`)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void server.close().then(() => process.exit(0))
  })
}
