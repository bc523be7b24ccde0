// `npm start`: the example support agent on the embedded default (in-memory
// store, in-process dispatch and timers), served at /api/agent.
import { agent } from '../shared/ai/server/index.ts'
import { serveFetch } from '../shared/node/serve.ts'
import { supportAgentOptions } from './example/support-agent.ts'

const port = Number(process.env.PORT ?? 3000)
const { online, ...options } = supportAgentOptions(process.env)
const assistant = agent(options)

const server = await serveFetch(
  async (request) => {
    const { pathname } = new URL(request.url)
    if (pathname === '/api/agent') return assistant.fetch(request)
    if (pathname === '/api/state' && request.method === 'GET') {
      // A convenience for curl: the folded state the browser would build.
      const sessionId = new URL(request.url).searchParams.get('sessionId') ?? ''
      try {
        return Response.json(await assistant.session(sessionId).state())
      } catch (error) {
        return Response.json(
          { error: { code: 'INVALID_SESSION_ID', message: (error as Error).message } },
          { status: 400 },
        )
      }
    }
    return Response.json(
      {
        error: { code: 'NOT_FOUND', message: `Nothing at ${pathname}; the agent is at /api/agent` },
      },
      { status: 404 },
    )
  },
  { port, hostname: process.env.HOST ?? '127.0.0.1' },
)

const api = `${server.url}/api/agent`
console.log(`a2-aws: "${assistant.name}" on ${api} (memory store, in-process dispatch)
model: ${online ? `${options.model} through AI Gateway` : 'the OFFLINE DEMO MODEL (set AI_GATEWAY_API_KEY for a real one)'}

  stream a session:  curl -N '${api}?sessionId=demo'
  read its state:    curl '${server.url}/api/state?sessionId=demo'
  send a message:    curl -X POST '${api}?sessionId=demo' -H 'content-type: application/json' \\
                       -d '{"events":[{"id":"m1","type":"ai.control.requested","payload":{"action":"message","generate":true,"message":{"id":"m1","role":"user","parts":[{"type":"text","text":"close ticket T-42"}]}}}]}'`)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    assistant.runtime.close()
    void server.close().then(() => process.exit(0))
  })
}
