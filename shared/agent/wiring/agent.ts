import type { ToolSet, UIMessage } from 'ai'
import ms from 'ms'
import { type FetchOptions, logEndpoint } from '../../http/log-endpoint.ts'
import { type ContractEvents, contract as coreContract } from '../../log/contract.ts'
import type { EventInput } from '../../log/event.ts'
import { eventLog } from '../../log/event-log.ts'
import { VERSION_HEADER } from '../../log/wire-protocol.ts'
import '../../runtime/handler-context-storage.ts'
import type { AgentState } from '../../model/contract/agent-contract.ts'
import { aiEventDefinitions } from '../../model/events/ai-event-definitions.ts'
import { checkInputIdentity } from '../../model/events/input-identity.ts'
import { sessionReducer } from '../../model/state/session-state.ts'
import type { WakeUp } from '../../runtime/wake-up.ts'
import { memoryEventStore } from '../../stores/memory/memory-event-store.ts'
import { localWork } from '../lanes/local-work.ts'
import { checkMessages } from '../session/message-check.ts'
import { browserPushPolicy } from '../session/push-policy.ts'
import type { AgentSession, SessionOptions } from '../session/session-api.ts'
import { settledWatch } from '../session/settled-watch.ts'
import { stateCache } from '../session/state-cache.ts'
import { resolveAgentConfig } from './agent-config.ts'
import { agentDelivery } from './agent-delivery.ts'
import { AGENT_ERROR_STATUSES } from './agent-error-statuses.ts'
import type { AgentMetrics } from './agent-metrics.ts'
import type { AgentOptions } from './agent-options.ts'
import { type AgentRuntime, agentRuntime } from './agent-runtime.ts'
import { mayHoldStuckWork, RECOVER_KEY } from './recovery.ts'

export interface Agent<
  Tools extends ToolSet = ToolSet,
  Events extends ContractEvents = ContractEvents,
  AppState = unknown,
  M extends UIMessage = UIMessage,
> {
  readonly name: string
  /**
   * This deploy's version: `agent({ version })`, or a digest of the tools,
   * their schemas, the contract and the handlers. Every model step and tool
   * result records the version that ran it.
   */
  readonly version: string
  readonly options: AgentOptions<Tools, Events, AppState, M>
  /**
   * The HTTP endpoint: GET streams a session's events as SSE, POST accepts
   * a browser's pushes (user messages and controls, your app's events).
   * Server-authored `ai.*` events are refused with 400.
   */
  fetch(request: Request, options?: AgentFetchOptions): Promise<Response>
  /**
   * A session as trusted server code sees it. With `life` (a `state()`'s or
   * a stored event's), its appends land only in that life of the session:
   * after an erase they fail with `LifeEndedError` (`LIFE_ENDED`) rather
   * than start the session over with a command meant for the erased one.
   */
  session(id: string, options?: SessionOptions): AgentSession<AgentState<M, AppState>>
  /** The runtime's parts, for the AWS pipeline and tests. */
  readonly runtime: AgentRuntime
}

export type { AgentRuntime, RunOptions } from './agent-runtime.ts'

/** The endpoint's options per request, and where its figures go (the Lambda adapter: its invocation's sink). */
export interface AgentFetchOptions extends FetchOptions {
  metrics?: AgentMetrics
}

/**
 * An agent: the AI protocol, the agent's loop, and A2's store, scheduler and
 * handlers. The default is embedded (an in-memory store, in-process
 * dispatch and timers); pass `store`, `dispatcher` and `scheduler` to run on
 * AWS.
 *
 * @example
 * export const assistant = agent({
 *   name: 'support-agent',
 *   model: 'openai/gpt-5.6-terra',
 *   instructions: 'Help the customer. Be concise.',
 * })
 */
export function agent<
  Tools extends ToolSet = ToolSet,
  Events extends ContractEvents = ContractEvents,
  AppState = unknown,
  M extends UIMessage = UIMessage,
>(options: AgentOptions<Tools, Events, AppState, M>): Agent<Tools, Events, AppState, M> {
  // 1. Configuration: the options resolved and checked once, at startup.
  const config = resolveAgentConfig(options)
  const appEvents = (options.contract?.events ?? {}) as ContractEvents
  const declared = coreContract({
    name: config.name,
    events: { ...appEvents, ...aiEventDefinitions() },
  })

  // 2. The log: the store, what every log over it carries (the contract,
  // the AI SDK's check of the messages commands carry, retention), and the
  // folded state of recent sessions.
  const store = options.store ?? memoryEventStore({ now: config.now })
  const logOptions = {
    contract: {
      validate: <Event extends EventInput>(event: Event): Event =>
        checkInputIdentity(declared.validate(event)),
      // What the log stamps versions and upcasts by.
      declares: declared.declares,
      events: declared.events,
    },
    check: checkMessages,
    ...(options.retention === undefined ? {} : { retentionMs: retentionMs(options.retention) }),
  }
  const log = eventLog({ store, ...logOptions })
  const reducer = sessionReducer(options.contract)
  const state = stateCache(log, reducer)
  const work = localWork()

  // 3. Delivery: wake-ups and timers. Embedded, they run this agent's own
  // work in process, calling back into the runtime built next: the one
  // reference forward in the wiring, taken only once a wake-up or a timer
  // is due, when `runtime` exists.
  const delivery = agentDelivery(options, config, {
    run: (wakeUp) => runtime.run(wakeUp),
    deadLetter: (wakeUp, failure) => runtime.deadLetter(wakeUp, failure),
    fireTimer: (timer) => runtime.fireTimer(timer),
  })
  const wake = (wakeUps: WakeUp[]): Promise<void> =>
    wakeUps.length === 0 ? Promise.resolve() : delivery.dispatcher.wake(wakeUps)

  // 4. The runtime: the lanes, each run on the ports of its invocation.
  const runtime = agentRuntime({
    config,
    store,
    log,
    logOptions,
    state,
    work,
    scheduler: delivery.scheduler,
    wake,
    idle: delivery.idle,
    close() {
      delivery.close()
      work.abortAll('closed')
      config.harness.close?.()
    },
  })

  // 5. The endpoint: SSE reads and browser pushes over the log.
  const endpoint = logEndpoint<AgentFetchOptions>({
    log,
    checkPush: browserPushPolicy(config.name, appEvents),
    // What each layer under the agent answers for its codes.
    errorStatuses: AGENT_ERROR_STATUSES,
    // A plain message decided where it is written (`runtime.append`, as a
    // service's on the ingress queue): the POST wakes the model step
    // itself, not admission after a queue, and its figures go where the
    // request says.
    append: (sessionId, events, { metrics }) =>
      runtime.append(sessionId, events, metrics ? { metrics } : {}),
    // A reader is the sign someone cares about the session: when it may hold
    // work a crashed process left behind (read off the state, no I/O beyond
    // the cached fold), admission runs and wakes the lanes that hold it.
    // The same state tells the stream when the session settles: it folds on
    // from there, and the stream ends soon after (`stream.settledQuietMs`).
    onRead: async (sessionId) => {
      const snapshot = await state(sessionId)
      const watch = { settled: settledWatch(reducer, snapshot) }
      const { state: current, index } = snapshot
      const handlers = config.handledTypes.size > 0
      if (!mayHoldStuckWork(current.ai, { handlers, controller: config.controller })) return watch
      // Durable delivery still holds work younger than its redelivery: a
      // page that POSTs and then opens its stream wakes nothing twice.
      const within = delivery.dispatcher.redeliversWithinMs
      if (within !== undefined) {
        const [latest] = await log.session(sessionId).read({ after: index - 1, limit: 1 })
        if (latest && config.now() - latest.timestamp < within) return watch
      }
      await wake([{ sessionId, lane: 'admission', key: RECOVER_KEY }])
      return watch
    },
    // The stream's heartbeat and quiet end run on the clock seam too.
    stream: { ...options.stream, timers: config.timers },
  })

  const { session, ...runtimeParts } = runtime
  return {
    name: config.name,
    version: config.version,
    options,
    // Every answer names the version that gave it, so a page can tell a deploy came.
    fetch: async (request, fetchOptions) => {
      const response = await endpoint(request, fetchOptions)
      response.headers.set(VERSION_HEADER, config.version)
      return response
    },
    // The lanes hold state erased to `unknown` (see resolveAgentConfig); it
    // is this agent's AgentState, folded by its own reducer.
    session: (id, sessionOptions) =>
      session(id, sessionOptions) as AgentSession<AgentState<M, AppState>>,
    runtime: runtimeParts,
  }
}

/** `'30 days'`, `'12h'` or milliseconds; anything else is a mistake worth failing on at startup. */
function retentionMs(retention: string | number): number {
  const value = typeof retention === 'number' ? retention : ms(retention as ms.StringValue)
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new TypeError(
      `Cannot read retention ${JSON.stringify(retention)}: use '30 days', '12h' or milliseconds`,
    )
  }
  return value
}
