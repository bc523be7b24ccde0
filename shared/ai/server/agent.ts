import type { ToolSet, UIMessage } from 'ai'
import ms from 'ms'
import { HttpError } from '../../http/http-error.ts'
import { type FetchOptions, logEndpoint } from '../../http/log-endpoint.ts'
import { type ContractEvents, contract as coreContract } from '../../log/contract.ts'
import { AppendConflictError } from '../../log/errors.ts'
import type { EventInput, StoredEvent } from '../../log/event.ts'
import { type EventLog, eventLog } from '../../log/event-log.ts'
import type { EventStore } from '../../log/event-store.ts'
import '../../runtime/handler-context-storage.ts'
import { inProcessDispatcher } from '../../runtime/in-process-dispatcher.ts'
import { inProcessScheduler } from '../../runtime/in-process-scheduler.ts'
import { isLane, LANE_NAMES, type Lane } from '../../runtime/lanes.ts'
import type { Scheduler, Timer } from '../../runtime/scheduler.ts'
import { type Dispatcher, DONE, type RunOutcome, type WakeUp } from '../../runtime/wake-up.ts'
import { memoryEventStore } from '../../stores/memory/memory-event-store.ts'
import type { AgentState } from '../contract/agent-contract.ts'
import { deadLetterEvents } from '../controller/dead-letter.ts'
import { AI_EVENTS, isAIEventType } from '../events/ai-events.ts'
import { type ControlRequest, controlRequestSchema } from '../events/control.ts'
import { browserMayPush } from '../events/control-actions.ts'
import { checkInputIdentity } from '../events/input-identity.ts'
import { sessionReducer } from '../state/session-state.ts'
import { resolveAgentConfig } from './agent-config.ts'
import { type AgentMetrics, safeMetrics } from './agent-metrics.ts'
import type { AgentOptions } from './agent-options.ts'
import { eraseAgentSession } from './erase-agent-session.ts'
import { runAdmissionLane } from './lanes/admission-lane.ts'
import { runGenerationLane } from './lanes/generation-lane.ts'
import { runHandlersLane } from './lanes/handlers-lane.ts'
import type { LaneContext } from './lanes/lane-context.ts'
import { localWork } from './lanes/local-work.ts'
import { runMetadataLane } from './lanes/metadata-lane.ts'
import { runToolsLane } from './lanes/tools-lane.ts'
import { checkMessages } from './message-check.ts'
import { meteredStore } from './metered-store.ts'
import { lanesToRecover, RECOVER_KEY } from './recovery.ts'
import { type AgentSession, agentSession } from './session-api.ts'
import { stateCache } from './state-cache.ts'
import { isTimerLog } from './timer-log.ts'
import { wakeUpsFor } from './wake-ups-for.ts'

export interface Agent<
  Tools extends ToolSet = ToolSet,
  Events extends ContractEvents = ContractEvents,
  AppState = unknown,
  M extends UIMessage = UIMessage,
> {
  readonly name: string
  readonly options: AgentOptions<Tools, Events, AppState, M>
  /**
   * The HTTP endpoint: GET streams a session's events as SSE, POST accepts
   * a browser's pushes (user messages and controls, your app's events).
   * Server-authored `ai.*` events are refused with 400.
   */
  fetch(request: Request, options?: FetchOptions): Promise<Response>
  /** A session as trusted server code sees it. */
  session(id: string): AgentSession<AgentState<M, AppState>>
  /** The runtime's parts, for the AWS pipeline and tests. */
  readonly runtime: AgentRuntime
}

/**
 * What one run reports to. The Lambda pipeline passes its own per
 * invocation (its CloudWatch sink, the construct's tracing switch).
 */
export interface RunOptions {
  /** Where the run's figures go (default: the agent's `metrics` option). */
  metrics?: AgentMetrics
  /** Turns the AI SDK's telemetry on for the run's model calls (default: the agent's `telemetry` option). */
  telemetry?: boolean
}

/** What firing a timer needs of it. */
export type FiredTimer = Pick<Timer, 'sessionId' | 'name' | 'events' | 'setIn'>

export interface AgentRuntime {
  log: EventLog
  store: EventStore
  /**
   * Runs one lane's due work for a session (what a Lambda handler calls):
   * done, or held by a live attempt elsewhere until `retryAt` (look again
   * then). A failure throws.
   */
  run(wakeUp: WakeUp, options?: RunOptions): Promise<RunOutcome>
  /** The lanes a batch of stored events concerns. */
  wakeUpsFor(events: readonly StoredEvent[]): WakeUp[]
  /**
   * Records on the session that a lane gave up on its work after `attempts`
   * tries (`ai.handler.dead-lettered`, in `state.deadLetters`). `occurrence`
   * makes the event's ID: the same occurrence is recorded once.
   */
  deadLetter(
    wakeUp: WakeUp,
    failure: { error: unknown; attempts: number; occurrence: string },
    options?: RunOptions,
  ): Promise<void>
  /**
   * Fires a due timer: appends its events as A2 (once, by their IDs) and
   * wakes their lanes. A timer set in a log (`setIn`) that finds the log
   * empty or started over (erased or expired since) is dropped with a warning.
   */
  fireTimer(timer: FiredTimer, options?: RunOptions): Promise<void>
  /**
   * A trusted server append (as `agent.session(id).append`) whose figures go
   * to the run's metrics: the ingress queue's handler, per invocation.
   */
  append(
    sessionId: string,
    events: readonly EventInput[],
    options?: RunOptions,
  ): Promise<StoredEvent[]>
  /** Wakes every lane the agent uses for a session, e.g. to recover work after a restart. */
  wakeAll(sessionId: string): Promise<void>
  /** Resolves when the embedded dispatcher has nothing running or queued. */
  idle(): Promise<void>
  /** Stops embedded timers and dispatch (tests, shutdown). */
  close(): void
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
  const config = resolveAgentConfig(options)
  const { name, handledTypes, logger } = config
  const appEvents = (options.contract?.events ?? {}) as ContractEvents
  const declared = coreContract({ name, events: { ...appEvents, ...AI_EVENTS } })
  const validation = {
    validate: <Event extends EventInput>(event: Event): Event =>
      checkInputIdentity(declared.validate(event)),
  }
  const store = options.store ?? memoryEventStore({ now: config.now })
  // Every log over the store (the lanes' metered ones too) carries the
  // retention and the AI SDK's check of the messages commands carry.
  const logOptions = {
    contract: validation,
    check: checkMessages,
    ...(options.retention === undefined ? {} : { retentionMs: retentionMs(options.retention) }),
  }
  const log = eventLog({ store, ...logOptions })
  const reducer = sessionReducer(options.contract)
  const work = localWork()
  const state = stateCache(log, reducer)

  const wake = (wakeUps: WakeUp[]): Promise<void> =>
    wakeUps.length === 0 ? Promise.resolve() : dispatcher.wake(wakeUps)

  // What a run works with. Its appends go through a store metered into the
  // run's metrics, and every append wakes the lanes its events concern: a
  // worker's, a tool's or a handler's as much as a browser's, so nothing
  // written waits unseen.
  function appendAndWake(target: EventLog) {
    return async (
      sessionId: string,
      events: readonly EventInput[],
      appendOptions: Parameters<ReturnType<EventLog['session']>['append']>[1] = {},
    ): Promise<StoredEvent[]> => {
      const stored = await target.session(sessionId).append(events, appendOptions)
      await wake(wakeUpsFor(stored, handledTypes))
      return stored
    }
  }
  function laneContext(metrics: AgentMetrics, telemetry: boolean): LaneContext {
    const metered = meteredStore(store, metrics)
    const meteredLog = eventLog({ store: metered, ...logOptions })
    const append = appendAndWake(meteredLog)
    return {
      config,
      log: meteredLog,
      store: metered,
      scheduler,
      state,
      appendAsA2: (sessionId, events, appendOptions) =>
        append(sessionId, events, { ...appendOptions, author: 'a2' }),
      append: (sessionId, events) => append(sessionId, events),
      wake,
      work,
      metrics,
      telemetry: { ...config.telemetry, isEnabled: telemetry },
      erase: (sessionId, eraseOptions) =>
        eraseAgentSession({ store, scheduler, state, work }, sessionId, eraseOptions),
    }
  }
  const laneFor = (options: RunOptions = {}): LaneContext =>
    options.metrics === undefined && options.telemetry === undefined
      ? defaultLane
      : laneContext(
          options.metrics ? safeMetrics(options.metrics) : config.metrics,
          options.telemetry ?? config.telemetry.isEnabled === true,
        )

  const fireTimer = async (timer: FiredTimer, runOptions?: RunOptions): Promise<void> => {
    const append = appendAndWake(laneFor(runOptions).log)
    const { setIn } = timer
    if (!setIn) {
      await append(timer.sessionId, timer.events, { author: 'a2' })
      return
    }
    const session = log.session(timer.sessionId)
    for (;;) {
      // Appended at the index just read, so an erase after the look is a
      // conflict (and another look), never a new log.
      const expectedIndex = await session.head()
      const [first] = expectedIndex === 0 ? [] : await session.read({ limit: 1 })
      if (!isTimerLog(setIn, first)) {
        const why = first
          ? 'the session was erased and started over since it was set'
          : 'the session has no log (erased or expired)'
        logger.warn(`a2: timer "${timer.name}" of session ${timer.sessionId} dropped: ${why}`)
        return
      }
      try {
        await append(timer.sessionId, timer.events, { author: 'a2', expectedIndex })
        return
      } catch (error) {
        if (!(error instanceof AppendConflictError)) throw error
      }
    }
  }
  const scheduler: Scheduler =
    options.scheduler ?? inProcessScheduler({ fire: fireTimer, now: config.now })

  const defaultLane = laneContext(config.metrics, config.telemetry.isEnabled === true)

  // Each lane's run, by the lane table's names (shared/runtime/lanes.ts).
  const runs: Record<Lane, (lane: LaneContext, wakeUp: WakeUp) => Promise<RunOutcome>> = {
    admission: async (lane, { sessionId, key }) => {
      await runAdmissionLane(lane, sessionId)
      if (key !== RECOVER_KEY) return DONE
      const { state: current } = await state(sessionId)
      const lanes = lanesToRecover(current.ai, { handlers: handledTypes.size > 0 })
      await wake(lanes.map((laneName) => ({ sessionId, lane: laneName })))
      return DONE
    },
    generation: (lane, { sessionId }) => runGenerationLane(lane, sessionId),
    tools: (lane, { sessionId, key }) => runToolsLane(lane, sessionId, key),
    handlers: (lane, { sessionId }) => runHandlersLane(lane, sessionId),
    metadata: async (lane, { sessionId, key }) => {
      await runMetadataLane(lane, sessionId, key)
      return DONE
    },
  }

  async function run(wakeUp: WakeUp, runOptions?: RunOptions): Promise<RunOutcome> {
    if (!isLane(wakeUp.lane)) {
      logger.warn(`a2: no lane "${wakeUp.lane}"`)
      return DONE
    }
    return runs[wakeUp.lane](laneFor(runOptions), wakeUp)
  }

  async function deadLetter(
    wakeUp: WakeUp,
    { error, attempts, occurrence }: { error: unknown; attempts: number; occurrence: string },
    runOptions?: RunOptions,
  ): Promise<void> {
    logger.error(
      `a2: ${wakeUp.lane} lane of session ${wakeUp.sessionId} dead-lettered after ${attempts} attempts: ${messageOf(error)}`,
    )
    const lane = laneFor(runOptions)
    const { state: current } = await state(wakeUp.sessionId)
    const events = deadLetterEvents(current.ai, {
      sessionId: wakeUp.sessionId,
      lane: wakeUp.lane,
      ...(wakeUp.key === undefined ? {} : { key: wakeUp.key }),
      error: messageOf(error),
      attempts,
      occurrence,
    })
    // Only a given-up tool's result wakes anything (the step after it): waking
    // the lane that gave up would run its work again.
    const stored = await lane.log.session(wakeUp.sessionId).append(events, { author: 'a2' })
    await wake(wakeUpsFor(stored, handledTypes).filter((next) => next.lane !== wakeUp.lane))
  }

  const embedded = options.dispatcher
    ? undefined
    : inProcessDispatcher({
        run: (wakeUp) => run(wakeUp),
        now: config.now,
        ...(options.retry ? { retry: options.retry } : {}),
        onRetry: (wakeUp, error, attempt, delayMs) =>
          logger.warn(
            `a2: ${wakeUp.lane} lane of session ${wakeUp.sessionId} failed (attempt ${attempt}), retrying in ${Math.round(delayMs)} ms: ${messageOf(error)}`,
          ),
        // Each give-up is its own occurrence (SQS's is its message ID). A
        // clock reading is not one: two give-ups in one reading collide.
        onDeadLetter: (wakeUp, error, attempts) =>
          deadLetter(wakeUp, { error, attempts, occurrence: crypto.randomUUID() }),
      })
  const dispatcher: Dispatcher = options.dispatcher ?? (embedded as Dispatcher)

  // Without handlers the handlers lane has nothing to do: not woken, it
  // costs nothing (on AWS, a message, an invocation, a read and a write).
  const lanesInUse = LANE_NAMES.filter(
    (laneName) => laneName !== 'handlers' || handledTypes.size > 0,
  )
  const wakeAllLanes = (sessionId: string): Promise<void> =>
    wake(lanesInUse.map((laneName) => ({ sessionId, lane: laneName })))

  const endpoint = logEndpoint({
    log,
    checkPush: (events) => {
      for (const event of events) {
        if (typeof event !== 'object' || event === null || typeof event.type !== 'string') continue
        if (isAIEventType(event.type)) {
          // An invalid command is left to the log's validation (400 INVALID_EVENT).
          const command =
            event.type === 'ai.control.requested'
              ? controlRequestSchema.safeParse(event.payload)
              : undefined
          const trusted =
            command === undefined ||
            (command.success && !browserMayPush(command.data as ControlRequest))
          if (trusted) {
            throw new HttpError(
              400,
              'SERVER_EVENT_REFUSED',
              `"${event.type}"${event.type === 'ai.control.requested' ? ` (${(event.payload as { action?: string })?.action})` : ''} is written by the server; browsers push user messages and controls`,
            )
          }
        } else if (!Object.hasOwn(appEvents, event.type)) {
          throw new HttpError(
            400,
            'UNKNOWN_EVENT_TYPE',
            `Unknown event type "${event.type}" for agent "${name}"`,
          )
        }
      }
    },
    onAppended: async (_sessionId, stored) => wake(wakeUpsFor(stored, handledTypes)),
    // A reader is the sign someone cares about the session: admission runs and
    // wakes the lanes that may hold work a crashed process left behind.
    onRead: (sessionId) => wake([{ sessionId, lane: 'admission', key: RECOVER_KEY }]),
    ...(options.stream ? { stream: options.stream } : {}),
  })

  return {
    name,
    options,
    fetch: (request, fetchOptions) => endpoint(request, fetchOptions),
    session(id) {
      // The lanes hold state erased to `unknown` (see resolveAgentConfig);
      // it is this agent's AgentState, folded by its own reducer.
      return agentSession(defaultLane, id) as never
    },
    runtime: {
      log,
      store,
      run,
      deadLetter,
      fireTimer,
      append: (sessionId, events, runOptions) => laneFor(runOptions).append(sessionId, events),
      wakeUpsFor: (events) => wakeUpsFor(events, handledTypes),
      wakeAll: wakeAllLanes,
      idle: () => embedded?.idle() ?? Promise.resolve(),
      close() {
        embedded?.close()
        ;(scheduler as { close?: () => void }).close?.()
        work.abortAll('closed')
      },
    },
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

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
