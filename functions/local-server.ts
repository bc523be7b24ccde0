// `npm start`: the example support agent on the embedded default (in-memory
// store, in-process dispatch and timers), served at /api/agent, and the
// example chat page (functions/example/web, built by `npm run build:web`) at /.
// Sessions need their capability token, as deployed: `POST /api/agent {}`
// opens one; the key is made per process.
import { randomBytes } from 'node:crypto'
import { readFile, stat } from 'node:fs/promises'
import { extname, join, resolve, sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { LanguageModelV4 } from '@ai-sdk/provider'
import { agent } from '../shared/ai/server/index.ts'
import { errorResponse } from '../shared/http/http-error.ts'
import { sessionCapability } from '../shared/http/session-capability.ts'
import type { EventStore } from '../shared/log/event-store.ts'
import { type LocalServer, serveFetch } from '../shared/node/serve.ts'
import { supportAgentOptions } from './example/support-agent.ts'

/** Where `npm run build:web` puts the chat page. */
export const WEB_ROOT = fileURLToPath(new URL('./example/web/dist/', import.meta.url))

export interface LocalServerOptions {
  port?: number
  hostname?: string
  env?: { AI_GATEWAY_API_KEY?: string; A2_MODEL?: string }
  /** Replaces the agent's model (tests pass a faster or slower demo model). */
  model?: LanguageModelV4
  /** The built chat page; `WEB_ROOT` by default. */
  webRoot?: string
  /** Where the log lives (default: in memory, gone when the process ends). */
  store?: EventStore
  /** How long a dead worker's claim blocks its work (tests shorten it). */
  claimTtlMs?: number
  /**
   * Signs session tokens (at least 32 bytes; default: random per process,
   * so a restart invalidates the tokens a page holds, as it loses the
   * in-memory log). A test that restarts on a kept store passes one.
   */
  sessionKey?: string | Uint8Array
}

/** Starts the example agent and the chat page; `close()` stops both. */
export async function startLocalServer({
  port = 0,
  hostname = '127.0.0.1',
  env = {},
  model,
  webRoot = WEB_ROOT,
  store,
  claimTtlMs,
  sessionKey = randomBytes(32),
}: LocalServerOptions = {}): Promise<
  LocalServer & {
    online: boolean
    name: string
    modelName: string
    /** A token for a session the caller names (tests, a server that hands out links). */
    sessionToken(sessionId: string): Promise<string>
  }
> {
  const { online, ...options } = supportAgentOptions(env)
  const assistant = agent({
    ...options,
    ...(model ? { model } : {}),
    ...(store ? { store } : {}),
    ...(claimTtlMs ? { claimTtlMs } : {}),
  })
  const web = staticFiles(webRoot)
  const sessions = sessionCapability({ key: sessionKey })
  const access = { authorize: sessions.authorize, openSession: sessions.openSession }

  const server = await serveFetch(
    async (request) => {
      const { pathname, searchParams } = new URL(request.url)
      if (pathname === '/api/agent') return assistant.fetch(request, access)
      if (pathname === '/api/state' && request.method === 'GET') {
        // A convenience for curl: the folded state the browser would build.
        const sessionId = searchParams.get('sessionId') ?? ''
        try {
          await sessions.verify(request, sessionId)
        } catch (error) {
          return errorResponse(error)
        }
        try {
          return Response.json(await assistant.session(sessionId).state())
        } catch (error) {
          return Response.json(
            { error: { code: 'INVALID_SESSION_ID', message: (error as Error).message } },
            { status: 400 },
          )
        }
      }
      if (!pathname.startsWith('/api/') && (request.method === 'GET' || request.method === 'HEAD'))
        return web(pathname)
      return Response.json(
        {
          error: {
            code: 'NOT_FOUND',
            message: `Nothing at ${pathname}; the agent is at /api/agent`,
          },
        },
        { status: 404 },
      )
    },
    { port, hostname },
  )
  return {
    url: server.url,
    online,
    name: assistant.name,
    modelName: typeof options.model === 'string' ? options.model : 'offline demo',
    sessionToken: async (sessionId) => (await sessions.mint(sessionId)).token,
    close: async () => {
      assistant.runtime.close()
      await server.close()
    },
  }
}

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
}

/**
 * A tiny static handler: files under `root` with their content types, and
 * index.html for any other path (the page reads its session from the URL).
 * Paths that resolve outside `root` are refused.
 */
export function staticFiles(root: string): (pathname: string) => Promise<Response> {
  const base = resolve(root)
  return async (pathname) => {
    let decoded: string
    try {
      decoded = decodeURIComponent(pathname)
    } catch {
      return new Response('Bad path', { status: 400 })
    }
    const file = resolve(join(base, decoded))
    if (file !== base && !file.startsWith(base + sep))
      return new Response('Not found', { status: 404 })
    const found = await isFile(file)
    const path = found ? file : join(base, 'index.html')
    try {
      const body = await readFile(path)
      const type = contentTypes[extname(path)] ?? 'application/octet-stream'
      const cache = path.includes(`${sep}assets${sep}`)
        ? 'public, max-age=31536000, immutable'
        : 'no-cache'
      return new Response(body, { headers: { 'content-type': type, 'cache-control': cache } })
    } catch {
      return new Response(
        'The chat page is not built: run `npm run build:web` (`npm start` does it for you).',
        { status: 503, headers: { 'content-type': 'text/plain; charset=utf-8' } },
      )
    }
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile()
  } catch {
    return false
  }
}

async function main(): Promise<void> {
  const server = await startLocalServer({
    port: Number(process.env.PORT ?? 3000),
    hostname: process.env.HOST ?? '127.0.0.1',
    env: process.env,
  })
  const api = `${server.url}/api/agent`
  console.log(`a2-aws: "${server.name}" on ${api} (memory store, in-process dispatch)
model: ${server.online ? `${server.modelName} through AI Gateway` : 'the OFFLINE DEMO MODEL (set AI_GATEWAY_API_KEY for a real one)'}

  chat in a browser: ${server.url}/
  open a session:    curl -s -X POST '${api}' -H 'content-type: application/json' -d '{}' > session.json
                     export S=$(jq -r .sessionId session.json) T=$(jq -r .token session.json)
  stream it:         curl -N "${api}?sessionId=$S" -H "authorization: Bearer $T"
  read its state:    curl "${server.url}/api/state?sessionId=$S" -H "authorization: Bearer $T"
  send a message:    curl -X POST "${api}?sessionId=$S" -H "authorization: Bearer $T" -H 'content-type: application/json' \\
                       -d '{"events":[{"id":"m1","type":"ai.control.requested","payload":{"action":"message","generate":true,"message":{"id":"m1","role":"user","parts":[{"type":"text","text":"close ticket T-42"}]}}}]}'`)

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void server.close().then(() => process.exit(0))
    })
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
