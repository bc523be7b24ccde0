import { onTestFinished } from 'vitest'
import { type Agent, type AgentOptions, agent } from '../../shared/agent/index.ts'
import type { AgentClient } from '../../shared/client/index.ts'
import { type LocalServer, serveFetch } from '../../shared/node/serve.ts'
import {
  type ScriptedModel,
  type Step,
  scriptedModel,
} from '../../shared/testing/scripted-model.ts'

export { textOf } from './conversation.ts'
export { until } from './until.ts'

/** Runs `cleanup` when the test ends (clients, servers, agents), last registered first. */
export function onCleanup(cleanup: () => Promise<void> | void): void {
  onTestFinished(cleanup)
}

/** Disposes the client after the test, so no stream outlives it. */
export function tracked<C extends Pick<AgentClient, 'dispose'>>(client: C): C {
  onCleanup(() => client.dispose())
  return client
}

export interface ServedAgent {
  agent: Agent
  model: ScriptedModel
  /** The absolute endpoint URL, `http://127.0.0.1:PORT/api/agent`. */
  api: string
  /** The `after` index of every stream request, in order. */
  resumes: number[]
  /** Ends every open SSE response, as a proxy timing out or a deploy would. */
  dropStreams(): void
  /** Stops the HTTP server and starts it again on the same port (the agent's log stays). */
  restart(): Promise<void>
  /**
   * Restarts on the same port with a fresh agent answering `steps` and an
   * empty log, as `npm start` on the memory store does; `agent` is the new one.
   */
  restartWithNewLog(steps: Step[]): Promise<void>
  /**
   * A deploy: restarts on the same port with a new agent object answering
   * `steps`, made with `changes` over the first one's options, on the same
   * store (the log stays); `agent` is the new one. Open streams end.
   */
  redeploy(steps: Step[], changes?: Partial<AgentOptions>): Promise<void>
  /** Sent as every response's `a2-version` when set (a deployment's version). */
  version?: string
  /** Rewrites requests before they reach the agent (e.g. to forget a resume index). */
  rewrite?: (request: Request) => Request
}

/**
 * A real embedded agent with a scripted model, served on a real port by
 * `serveFetch`. Streams are wrapped so a test can drop them, and resume
 * indexes are recorded.
 */
export async function servedAgent(
  steps: Step[],
  options: Partial<AgentOptions> & { chunkDelayMs?: number } = {},
): Promise<ServedAgent> {
  const { chunkDelayMs = 0, ...agentOptions } = options
  const model = scriptedModel(steps, { chunkDelayMs })
  const create = (script: ScriptedModel, changes: Partial<AgentOptions> = {}) =>
    agent({
      name: 'client-test',
      model: script.model,
      ...agentOptions,
      ...changes,
    } as AgentOptions)
  let a = create(model)
  const open = new Set<ReadableStreamDefaultController<Uint8Array>>()
  const served: ServedAgent = {
    agent: a,
    model,
    api: '',
    resumes: [],
    dropStreams() {
      for (const controller of open) controller.close()
      open.clear()
    },
    restart: async () => {
      const port = Number(new URL(server.url).port)
      await server.close()
      server = await serveFetch(handle, { port })
    },
    restartWithNewLog: async (next) => {
      const port = Number(new URL(server.url).port)
      await server.close()
      a.runtime.close()
      a = create(scriptedModel(next, { chunkDelayMs }))
      served.agent = a
      server = await serveFetch(handle, { port })
    },
    redeploy: async (next, changes = {}) => {
      const port = Number(new URL(server.url).port)
      const store = a.runtime.log.store
      served.dropStreams()
      await server.close()
      a.runtime.close()
      a = create(scriptedModel(next, { chunkDelayMs }), { ...changes, store })
      served.agent = a
      server = await serveFetch(handle, { port })
    },
  }
  async function handle(incoming: Request): Promise<Response> {
    const request = served.rewrite ? served.rewrite(incoming) : incoming
    const response = await a.fetch(request)
    if (served.version !== undefined) response.headers.set('a2-version', served.version)
    if (request.method !== 'GET' || !response.ok || !response.body) return response
    served.resumes.push(Number(new URL(request.url).searchParams.get('after') ?? 0))
    const reader = response.body.getReader()
    let self: ReadableStreamDefaultController<Uint8Array> | undefined
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        self = controller
        open.add(controller)
      },
      async pull(controller) {
        const next = await reader.read().catch(() => ({ done: true as const, value: undefined }))
        if (next.done) {
          open.delete(controller)
          controller.close()
        } else controller.enqueue(next.value)
      },
      cancel: async () => {
        if (self) open.delete(self)
        await reader.cancel()
      },
    })
    return new Response(body, { status: response.status, headers: response.headers })
  }
  let server: LocalServer = await serveFetch(handle)
  served.api = `${server.url}/api/agent`
  onCleanup(async () => {
    a.runtime.close()
    await server.close()
  })
  return served
}
