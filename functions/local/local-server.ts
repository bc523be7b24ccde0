// `npm start`: the example support agent on the embedded default (in-memory
// store, in-process dispatch and timers), served at /api/agent, and the
// example chat page (functions/example/web, built by `npm run build:web`) at /.
// Sessions need their capability token, as deployed: `POST /api/agent {}`
// opens one; the key is made per process.
import { randomBytes } from 'node:crypto'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { LanguageModelV4 } from '@ai-sdk/provider'
import { type AgentOptions, agent } from '../../shared/agent/index.ts'
import { sessionCapability } from '../../shared/http/session-capability.ts'
import type { EventStore } from '../../shared/log/event-store.ts'
import type { LocalServer } from '../../shared/node/serve.ts'
import { serveAgent } from '../../shared/node/serve-agent.ts'
import { gatewaySettings } from '../example/gateway-origin.ts'
import { supportAgentOptions } from '../example/support-agent.ts'
import { exitClearly } from '../exit-clearly.ts'
import { listenAddress } from './listen-address.ts'
import { stateRoute } from './state-route.ts'
import { formatCommands, tourCommands } from './tour-commands.ts'

/** Where `npm run build:web` puts the chat page. */
export const WEB_ROOT = fileURLToPath(new URL('../example/web/dist/', import.meta.url))

export interface LocalServerOptions {
  port?: number
  hostname?: string
  /**
   * The example's settings (`supportAgentOptions()`). `A2_GATEWAY_URL` here
   * moves the model catalog only: model ID strings resolve through the
   * process's default provider, which `main()` sets (a test installs its
   * Gateway double).
   */
  env?: Parameters<typeof supportAgentOptions>[0]
  /** Replaces the agent's model (tests pass a faster or slower demo model). */
  model?: LanguageModelV4
  /** The built chat page; `WEB_ROOT` by default. */
  webRoot?: string
  /** Where the log lives (default: in memory, gone when the process ends). */
  store?: EventStore
  /** How long a dead worker's claim blocks its work (tests shorten it). */
  claimTtlMs?: number
  /** The SSE stream's options (tests shorten the quiet period). */
  stream?: AgentOptions['stream']
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
  stream,
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
    ...(stream ? { stream } : {}),
  })
  const sessions = sessionCapability({ key: sessionKey })
  const server = await serveAgent(assistant, {
    port,
    hostname,
    webRoot,
    authorize: sessions.authorize,
    openSession: sessions.openSession,
    routes: { '/api/state': stateRoute(assistant, sessions.verify) },
  })
  return {
    url: server.url,
    online,
    name: assistant.name,
    modelName: online ? options.model : 'offline demo',
    sessionToken: async (sessionId) => (await sessions.mint(sessionId)).token,
    close: async () => {
      assistant.runtime.close()
      await server.close()
    },
  }
}

async function main(): Promise<void> {
  // Process-wide, so here and not in the agent: model ID strings resolve
  // through the AI SDK's default provider, now AI Gateway at A2_GATEWAY_URL.
  const gateway = gatewaySettings(process.env)
  if (gateway) globalThis.AI_SDK_DEFAULT_PROVIDER = gateway.provider
  const server = await startLocalServer({ ...(await listenAddress(process.env)), env: process.env })
  const api = `${server.url}/api/agent`
  const route = server.modelName.startsWith('bedrock:')
    ? ' on Amazon Bedrock'
    : ` through AI Gateway${gateway ? ` at ${gateway.origin}` : ''}`
  console.log(`a2-aws: "${server.name}" on ${api} (memory store, in-process dispatch)
model: ${server.online ? `${server.modelName}${route}` : 'the OFFLINE DEMO MODEL (set AI_GATEWAY_API_KEY for a real one)'}

${formatCommands([
  { label: 'chat in a browser', command: `${server.url}/` },
  ...tourCommands(api, `${server.url}/api/state`),
])}`)

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void server.close().then(() => process.exit(0))
    })
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await exitClearly('npm start', main)
}
