import type { UIMessage } from 'ai'
import type { AgentState } from '../model/contract/agent-contract.ts'
import type { AIState } from '../model/state/ai-state.ts'
import { type ContractLike, sessionReducer } from '../model/state/session-state.ts'
import type { AgentLike, ContractFreeOnly, MessageOf } from './agent-types.ts'
import type { BackoffOptions } from './backoff.ts'
import { type ClientSession, createSession } from './client-session.ts'
import { type HeadersOption, resolveHeaders } from './endpoint.ts'
import { skewWatch } from './server-skew.ts'

/** A session's token, or how to find the token of a session. */
export type SessionToken =
  | string
  | ((sessionId: string) => string | undefined | Promise<string | undefined>)

/** Idle session objects are kept this long by default: five minutes. */
export const DEFAULT_GC_TIME_MS = 5 * 60 * 1000

export interface AgentClientOptions {
  /** The agent's route, e.g. `/api/agent` in a browser or an absolute URL in Node. */
  api: string
  /** How long an idle session object (no listeners, no pushes in flight) is kept. */
  gcTime?: number
  /** Default: the global `fetch`. */
  fetch?: typeof globalThis.fetch
  /** Sent with every request; a function is called each time (fresh auth tokens). */
  headers?: HeadersOption
  /**
   * A session's capability token, sent as `Authorization: Bearer` on every
   * request: one string for a client of one session, or a function of the
   * session ID (called per request) for a client of several.
   */
  token?: SessionToken
  /** Makes event and message IDs; default `crypto.randomUUID()`. */
  generateId?: () => string
  /**
   * Stream reconnect and push retry waits: the first 500 ms (a stream's is
   * the server's `retry:` hint when it sent one), doubling to at most 30 s.
   */
  reconnect?: BackoffOptions
  /**
   * After the server ended a session's stream for quiet, how often the
   * session checks the log's head for news (`?head`) while nothing is
   * expected (default 8 s, `DEFAULT_IDLE_CHECK_MS`; every minute while the
   * page is hidden). The stream opens again when the head moved, on a send,
   * and when the page is shown or focused.
   */
  idleCheckMs?: number
}

export interface AgentClient<M extends UIMessage = UIMessage, State = AIState<M>> {
  readonly api: string
  /** The session object for `id`: the same one while it lives, a fresh one after collection. */
  session(id: string): ClientSession<M, State>
  /** Closes every session's stream and forgets them (tests, teardown). */
  dispose(): void
}

/**
 * The framework-neutral client: session objects that stay live over SSE,
 * apply pending commands optimistically and push durable commands. The
 * React hook, the `ChatTransport` and Node services all build on it.
 *
 * @example
 * import type { assistant } from './server/assistant'
 * export const assistantClient = createAgentClient<typeof assistant>({ api: '/api/agent' })
 * await assistantClient.session('s1').sendMessage('Hi')
 */
export function createAgentClient<A extends AgentLike = AgentLike>(
  options: AgentClientOptions & { contract?: undefined } & ContractFreeOnly<A>,
): AgentClient<MessageOf<A>>
export function createAgentClient<App, M extends UIMessage = UIMessage>(
  options: AgentClientOptions & {
    /**
     * Your `agentContract()` (a real import, not type-only): the client
     * folds its reducer too, and `state` merges it under AIState.
     */
    contract: ContractLike<App> & { message?: M }
  },
): AgentClient<M, AgentState<M, App>>
export function createAgentClient(
  options: AgentClientOptions & { contract?: ContractLike<unknown> },
): AgentClient {
  return untypedAgentClient(options)
}

/**
 * `createAgentClient` without the overloads that type it from an agent or a
 * contract: for code (`useAgent`'s default client) that holds the contract
 * only as a value.
 */
export function untypedAgentClient(
  options: AgentClientOptions & { contract?: ContractLike<unknown> | undefined },
): AgentClient {
  const { api, gcTime = DEFAULT_GC_TIME_MS, contract } = options
  // Looked up per call, so a fetch patched after start-up (tests, mocks) is used.
  const base = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  // Every request names this build's wire protocol, and every session hears
  // what the server's answers say of it (a refusal: the page must reload).
  const skew = skewWatch(base)
  const fetch = skew.fetch
  const generateId = options.generateId ?? (() => crypto.randomUUID())
  const reducer = sessionReducer(contract)
  const sessions = new Map<string, ClientSession>()
  const timers = new Map<ClientSession, ReturnType<typeof setTimeout>>()

  function onIdleChange(session: ClientSession, idle: boolean): void {
    clearTimeout(timers.get(session))
    timers.delete(session)
    if (!idle) {
      // A collected session that someone still held came back to life.
      if (!sessions.has(session.id)) sessions.set(session.id, session)
      return
    }
    if (gcTime === Number.POSITIVE_INFINITY) return
    const timer = setTimeout(() => {
      timers.delete(session)
      if (sessions.get(session.id) === session) sessions.delete(session.id)
    }, gcTime)
    // A Node service that pushed and moved on must be able to exit.
    ;(timer as { unref?: () => void }).unref?.()
    timers.set(session, timer)
  }

  return {
    api,
    session(id) {
      let session = sessions.get(id)
      if (!session) {
        session = createSession(id, {
          endpoint: { api, fetch, ...headersFor(id, options) },
          reducer,
          contract,
          skew,
          generateId,
          reconnect: options.reconnect,
          idleCheckMs: options.idleCheckMs,
          onIdleChange,
        })
        sessions.set(id, session)
        onIdleChange(session, true)
      }
      return session
    },
    dispose() {
      for (const timer of timers.values()) clearTimeout(timer)
      timers.clear()
      for (const session of sessions.values()) session.close()
      sessions.clear()
    },
  }
}

/** The session's request headers: the client's own, and its token as a bearer. */
function headersFor(
  sessionId: string,
  { headers, token }: Pick<AgentClientOptions, 'headers' | 'token'>,
): { headers?: HeadersOption } {
  if (token === undefined) return headers ? { headers } : {}
  return {
    headers: async () => {
      const resolved = await resolveHeaders(headers)
      const value = typeof token === 'function' ? await token(sessionId) : token
      if (value) resolved.set('authorization', `Bearer ${value}`)
      return resolved
    },
  }
}
