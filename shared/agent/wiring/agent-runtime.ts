import type { EventInput, StoredEvent } from '../../log/event.ts'
import type { EventLog } from '../../log/event-log.ts'
import type { EventStore } from '../../log/event-store.ts'
import { messageOf } from '../../log/message-of.ts'
import { deadLetterEvents } from '../../model/controller/dead-letter.ts'
import { pinElsewhere } from '../../model/controller/version-pin.ts'
import { isLane, LANE_NAMES, type Lane } from '../../runtime/lane-table.ts'
import { DONE, type RunOutcome, type WakeUp } from '../../runtime/wake-up.ts'
import { runControllerLane } from '../lanes/controller-lane.ts'
import { runGenerationLane } from '../lanes/generation-lane.ts'
import { runHandlersLane } from '../lanes/handlers-lane.ts'
import { runMetadataLane } from '../lanes/metadata-lane.ts'
import { runToolsLane } from '../lanes/tools-lane.ts'
import type { AgentSession, SessionOptions } from '../session/session-api.ts'
import { type FiredTimer, timerFiring } from '../timers/timer-firing.ts'
import { type AgentMetrics, safeMetrics } from './agent-metrics.ts'
import { type AgentParts, type InvocationPorts, invocationPorts } from './invocation-ports.ts'
import { lanesToRecover, RECOVER_KEY } from './recovery.ts'
import { wakeUpsFor } from './wake-ups-for.ts'

/**
 * What one run reports to, as its caller sets it (the Lambda pipeline, per
 * invocation: its CloudWatch sink, the construct's tracing switch).
 */
export interface RunOptions {
  /** Where the run's figures go (default: the agent's `metrics` option). */
  metrics?: AgentMetrics
  /** Turns the AI SDK's telemetry on for the run's model calls (default: the agent's `telemetry` option). */
  telemetry?: boolean
  /**
   * The wake-up was forwarded here by a process of another version, for the
   * version this process runs (`versions.routes`): it runs here, and is
   * never forwarded again.
   */
  forwarded?: boolean
}

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
   * Commands are decided where they are written when the controller can
   * (`appendDecidedPush`), as a browser's are. Answers with the events given.
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

/** The lanes that run a turn's code (the model step, the tools): what a version pin holds to its version. */
const PINNED_LANES: ReadonlySet<Lane> = new Set(['generation', 'tools'])

/**
 * A turn's work pinned to another version (`versions`, controller/version-pin.ts)
 * runs on that version's code, through its route: the outcome there, or
 * undefined to run it here (no pin elsewhere, or its version no longer
 * answers: then under the in-flight rules, and the log says so).
 */
async function runWherePinned(
  ports: InvocationPorts,
  wakeUp: WakeUp,
): Promise<RunOutcome | undefined> {
  const { config } = ports
  const { routes, policy, pinnedForMs } = config.versions
  if (!routes || policy === 'latest') return undefined
  const { state } = await ports.state(wakeUp.sessionId)
  const pin = pinElsewhere(state.ai, { version: config.version, policy, pinnedForMs }, config.now())
  if (!pin) return undefined
  const outcome = await routes.forward(pin.route, wakeUp)
  if (outcome) return outcome
  config.logger.warn(
    `a2: ${wakeUp.lane} work of session ${wakeUp.sessionId} is pinned to version ${pin.version}, which no longer answers at ${pin.route}: version ${config.version} runs it`,
  )
  return undefined
}

/** Each lane's run, by the lane table's names (shared/runtime/lane-table.ts). */
const RUNS: Record<Lane, (ports: InvocationPorts, wakeUp: WakeUp) => Promise<RunOutcome>> = {
  admission: async (ports, { sessionId, key }) => {
    await runControllerLane(ports, sessionId)
    if (key !== RECOVER_KEY) return DONE
    const { state } = await ports.state(sessionId)
    const lanes = lanesToRecover(state.ai, { handlers: ports.config.handledTypes.size > 0 })
    await ports.wake(lanes.map((lane) => ({ sessionId, lane })))
    return DONE
  },
  generation: (ports, { sessionId }) => runGenerationLane(ports, sessionId),
  tools: (ports, { sessionId, key }) => runToolsLane(ports, sessionId, key),
  handlers: (ports, { sessionId }) => runHandlersLane(ports, sessionId),
  metadata: async (ports, { sessionId, key }) => {
    await runMetadataLane(ports, sessionId, key)
    return DONE
  },
}

/**
 * The runtime over an agent's parts: each run gets the ports of its
 * invocation (the agent's own metrics and telemetry unless the caller
 * brings its own), and runs the lane it was woken for.
 */
export function agentRuntime(
  parts: AgentParts & {
    /** The log unmetered: the endpoint's and the state cache's. */
    log: EventLog
    idle(): Promise<void>
    close(): void
  },
): AgentRuntime & {
  /** The session as trusted server code sees it (`agent.session(id)`). */
  session(sessionId: string, options?: SessionOptions): AgentSession
} {
  const { config } = parts
  const own = invocationPorts(parts, { metrics: config.metrics, telemetry: config.telemetry })
  const portsFor = (options: RunOptions = {}): InvocationPorts =>
    options.metrics === undefined && options.telemetry === undefined
      ? own
      : invocationPorts(parts, {
          metrics: options.metrics ? safeMetrics(options.metrics) : config.metrics,
          telemetry: {
            ...config.telemetry,
            isEnabled: options.telemetry ?? config.telemetry.isEnabled === true,
          },
        })

  async function run(wakeUp: WakeUp, options?: RunOptions): Promise<RunOutcome> {
    if (!isLane(wakeUp.lane)) {
      config.logger.warn(`a2: no lane "${wakeUp.lane}"`)
      return DONE
    }
    const ports = portsFor(options)
    if (options?.forwarded !== true && PINNED_LANES.has(wakeUp.lane)) {
      const there = await runWherePinned(ports, wakeUp)
      if (there) return there
    }
    return RUNS[wakeUp.lane](ports, wakeUp)
  }

  async function deadLetter(
    wakeUp: WakeUp,
    { error, attempts, occurrence }: { error: unknown; attempts: number; occurrence: string },
    options?: RunOptions,
  ): Promise<void> {
    config.logger.error(
      `a2: ${wakeUp.lane} lane of session ${wakeUp.sessionId} dead-lettered after ${attempts} attempts: ${messageOf(error)}`,
    )
    const ports = portsFor(options)
    const { state } = await ports.state(wakeUp.sessionId)
    const givenUp = {
      sessionId: wakeUp.sessionId,
      lane: wakeUp.lane,
      ...(wakeUp.key === undefined ? {} : { key: wakeUp.key }),
      error: messageOf(error),
      attempts,
      occurrence,
    }
    // The one write that does not wake every lane it concerns: waking the
    // lane that gave up would run its work again. A given-up tool's result
    // still wakes the step after it.
    const log = ports.log.session(wakeUp.sessionId)
    const stored = await log
      .append(deadLetterEvents(state.ai, givenUp), { author: 'a2' })
      // A dead letter must land, or nothing says the work was given up:
      // when ending a step on its calls cannot be written (the very write
      // that kept failing), the step fails, as it always could.
      .catch(() =>
        log.append(deadLetterEvents(state.ai, givenUp, { endOnCalls: false }), { author: 'a2' }),
      )
    await parts.wake(wakeUpsFor(stored, config).filter((next) => next.lane !== wakeUp.lane))
  }

  // Without handlers the handlers lane has nothing to do: not woken, it
  // costs nothing (on AWS, a message, an invocation, a read and a write).
  const lanesInUse = LANE_NAMES.filter(
    (lane) => lane !== 'handlers' || config.handledTypes.size > 0,
  )

  return {
    log: parts.log,
    store: parts.store,
    run,
    deadLetter,
    fireTimer: (timer, options) => {
      const ports = portsFor(options)
      return timerFiring({
        session: (sessionId) => ports.log.session(sessionId),
        append: ports.appendAndWake,
        logger: config.logger,
        handlers: { types: config.handledTypes, version: config.version },
      })(timer)
    },
    // A service's message decided where it is written, as a browser's push
    // is: the model step is woken from here, not by admission.
    append: (sessionId, events, options) => portsFor(options).appendDeciding(sessionId, events),
    wakeUpsFor: (events) => wakeUpsFor(events, config),
    wakeAll: (sessionId) => parts.wake(lanesInUse.map((lane) => ({ sessionId, lane }))),
    idle: parts.idle,
    close: parts.close,
    session: (sessionId, options) =>
      own.session(sessionId, {
        from: config.now,
        ...(options?.life === undefined ? {} : { life: options.life }),
      }),
  }
}
