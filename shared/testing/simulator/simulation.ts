import type { LanguageModelV4 } from '@ai-sdk/provider'
import type { ToolSet } from 'ai'
import { type Agent, agent } from '../../agent/wiring/agent.ts'
import type { AgentOptions } from '../../agent/wiring/agent-options.ts'
import { PipelineError } from '../../aws/errors.ts'
import type { StoredEvent } from '../../log/event.ts'
import type { EventStore } from '../../log/event-store.ts'
import type { Dispatcher } from '../../runtime/wake-up.ts'
import { memoryEventStore } from '../../stores/memory/memory-event-store.ts'
import { installDefaultProvider } from '../default-provider.ts'
import { observeEffects } from '../effect-observer.ts'
import { type BrowserRecord, browse } from './browser.ts'
import { checkSessions, type SessionFailure } from './check-sessions.ts'
import { FAULT_KINDS, type FaultKind, Faults, planFaults } from './faults.ts'
import { seededRandom } from './random.ts'
import { catalogFetch, gatewayProvider, SIM_GATEWAY_MODEL } from './sim-gateway.ts'
import { ModelSpans, simModel } from './sim-model.ts'
import { ProcessPool, workContext } from './sim-process.ts'
import { SimQueues } from './sim-queues.ts'
import { simStore, storeCaller } from './sim-store.ts'
import { SimTimers } from './sim-timers.ts'
import { withCrashPoints } from './tool-crash-points.ts'
import { emptyRecord, playSession, type UserRecord } from './user.ts'
import {
  countedTools,
  EffectRuns,
  type SimulatedAgent,
  toolPolicies,
  userScript,
  withSummaries,
} from './user-agent.ts'
import { WakeUpLedger } from './wake-up-ledger.ts'
import { planSessions, type TurnKind, USER_AGENT_TURN_KINDS } from './workload.ts'
import { ToolLedger, workloadAgentOptions, workloadScript } from './workload-agent.ts'
import { type TraceLine, World, type WorldEnd } from './world.ts'

/** What a run varies; every field not given is drawn from the seed. */
export interface SimulationOptions {
  seed: number
  /** Sessions (default: 1 to 4, from the seed). */
  sessions?: number
  /** Turns per session, at most (default 4). */
  turns?: number
  /** Only these sessions of the seed's plan (by index): what shrinking keeps. */
  only?: readonly number[]
  /** The fault kinds that may be enabled (default: all); each is on or off by the seed. */
  faults?: readonly FaultKind[]
  /** The turn kinds users play (default: all). */
  kinds?: readonly TurnKind[]
  /** Live processes kept, scaled up to, and invocations each runs at once (default: from the seed). */
  processes?: { min: number; max: number; slots: number }
  /**
   * The model as the agent names it: a Gateway model ID string (with the
   * metadata lane's catalog lookup and automatic compaction, on the
   * catalog's `contextWindow`), or a model object (default: from the seed).
   */
  model?: { kind: 'gateway'; contextWindow: number } | { kind: 'object' }
  /**
   * A fresh store on the world's clock (default: the memory store). The
   * memory store meets the `store.*` faults at its port, as the DynamoDB
   * store's caller would; a store given here gets the run's faults to
   * inject where it meets them itself (the DynamoDB store: in the SDK's
   * middleware, so the SDK's retries and the adapter's handling are real).
   */
  store?: (
    now: () => number,
    faults: Pick<Faults, 'strikes' | 'pick'>,
  ) => SimulatedStore | Promise<SimulatedStore>
  /** Agenda entries a run may fire before it is called a livelock (default 200,000; a day's 2,000,000). */
  maxSteps?: number
  /**
   * A day of one pool: 8 to 12 sessions (unless `sessions` says), up to 6
   * turns each, opened over three hours, served by the same long-lived
   * containers (until a fault kills one), so each holds caches, hints and
   * claims of many sessions and lives at once.
   */
  day?: boolean
  /**
   * Your agent in place of the simulator's workload: its tools, contract,
   * handlers and instructions, on the simulator's model (your script),
   * store, queues, timers and clocks; users play the turn kinds that need
   * nothing of its tools (`USER_AGENT_TURN_KINDS`, or `kinds`) with your
   * `messages`, and your `effects` are checked: once per logical call.
   */
  // biome-ignore lint/suspicious/noExplicitAny: any agent's tools
  agent?: SimulatedAgent<any>
}

export type { SessionFailure } from './check-sessions.ts'

/**
 * A store for `simulate({ store })`: one instance for every process, or, as
 * on AWS, an instance per process (`instance()`, each with its own memory of
 * the sessions it served: the DynamoDB store's hints) over one table, and
 * `store`, an instance of its own, for the checks.
 */
export type SimulatedStore = EventStore | { store: EventStore; instance(): EventStore }

export interface SimulationReport {
  seed: number
  /** The options the run resolved to (what a replay needs besides the seed). */
  options: Required<Pick<SimulationOptions, 'turns' | 'processes' | 'model'>> & {
    sessions: number
    only?: readonly number[]
    faults: readonly FaultKind[]
    kinds?: readonly TurnKind[]
    /** A day of one pool (`day: true`). */
    day?: boolean
    /** The workload's agent runs its local tools one at a time (`toolLane: 'tools'`; drawn from the seed). */
    serialTools?: boolean
    /** Your agent, when the run was of it (a replay passes it again). */
    // biome-ignore lint/suspicious/noExplicitAny: any agent's tools
    agent?: SimulatedAgent<any>
  }
  end: WorldEnd
  failures: SessionFailure[]
  trace: TraceLine[]
  /** The trace's digest: a replay of the seed has the same one. */
  digest: number
  figures: {
    steps: number
    simulatedMs: number
    sessions: number
    events: number
    modelCalls: number
    /** Compactions completed. */
    compactions: number
    processes: number
    kills: number
    /** The latest a wake-up a fast path owed came after its commit (simulated ms). */
    latestWakeUpMs: number
    /** Processes frozen past their claims (the `process.frozen` fault). */
    freezes: number
    /** Sessions erased and started over under the same ID (a life after the first). */
    restarts: number
    messages: number
    timersFired: number
    /** Reducer snapshots the run's processes wrote (a cold read folded 100 events or more past the last). */
    snapshotsWritten: number
    /** The run's cold reads by processes that started from a stored snapshot (the snapshot read path). */
    snapshotsRead: number
    faults: Partial<Record<FaultKind, number>>
  }
}

const START = Date.UTC(2026, 0, 1)
const CLAIM_TTL_MS = 30_000
const MAX_KILLS = 8
const MAX_FREEZES = 4
const quiet = { info() {}, warn() {}, error() {} }

/**
 * Runs one seed: the real runtime (`agent()` and its lanes, the
 * controller, the store's logic) in several processes over one store, on
 * simulated time, with users playing the seed's sessions and the seed's
 * faults injected, until the world is quiet; then checks every session's
 * invariants. The same options make the same run.
 */
export async function simulate(options: SimulationOptions): Promise<SimulationReport> {
  const random = seededRandom(options.seed)
  const shape = random.fork('shape')
  // Drawn whatever the options say, so an option given leaves the others as the seed drew them.
  const drawn = {
    sessions: shape.between(1, 4),
    processes: { min: shape.between(1, 2), max: shape.between(2, 4), slots: shape.pick([1, 2, 4]) },
    model: shape.chance(0.7)
      ? { kind: 'gateway' as const, contextWindow: shape.pick([1_500, 4_000, 400_000]) }
      : { kind: 'object' as const },
    // Drawn after the rest, so the seed's other draws stay as they were.
    serialTools: shape.chance(0.25),
  }
  const day = options.day === true
  const sessions = options.sessions ?? (day ? 8 + (drawn.sessions % 5) : drawn.sessions)
  const turns = options.turns ?? (day ? 6 : 4)
  const processes = options.processes ?? {
    ...drawn.processes,
    max: Math.max(drawn.processes.min, drawn.processes.max),
  }
  const model = options.model ?? drawn.model
  const allowed = options.faults ?? FAULT_KINDS
  const users = options.agent
  const kinds = options.kinds ?? (users ? USER_AGENT_TURN_KINDS : undefined)
  const planned = planSessions(random.fork('workload'), {
    sessions,
    turns,
    ...(kinds ? { kinds } : {}),
    ...(day ? { spreadMs: 3 * 3600_000 } : {}),
  })
  const plans = options.only ? planned.filter((_, index) => options.only?.includes(index)) : planned
  const faults = new Faults(planFaults(random.fork('fault plan'), allowed), random.fork('faults'))
  let kills = 0
  let freezes = 0
  const world = new World({
    start: START,
    maxSteps: options.maxSteps ?? (day ? 2_000_000 : 200_000),
    maxDurationMs: 12 * 3600_000,
    crashAt: () => {
      if (kills >= MAX_KILLS || !faults.strikes('process.killed')) return undefined
      kills++
      return faults.pick(['before', 'after'] as const)
    },
    freezeAt: (_owner, label) => {
      if (freezes >= MAX_FREEZES || !label.startsWith('store.append')) return undefined
      // Most often as a write goes out that a takeover decides on: a tool's
      // call or result, an approval's request (the search's bias, where a
      // freeze can do harm; every other write freezes too, at the rate).
      const decisive = /tool\.called|tool\.result|approval\.requested/.test(label)
      if (!faults.strikes('process.frozen', decisive ? 25 : 1)) return undefined
      freezes++
      return {
        ms: faults.between(CLAIM_TTL_MS + 1_000, 3 * CLAIM_TTL_MS),
        racy: faults.pick([true, false]),
      }
    },
  })
  world.racyAfterMs = CLAIM_TTL_MS
  world.onFreeze((owner) => spans.frozen(owner))
  world.onFreeze((owner) => wakeUpLedger.froze(owner, world.time))
  // The store reads the clock of the process it serves (its adapter's), else the world's.
  const clocks = new Map<number, () => number>()
  const storeNow = () => {
    const owner = storeCaller.getStore()
    return (owner === undefined ? undefined : clocks.get(owner)?.()) ?? world.time
  }
  // Lives counted from 1, not the default's random prefix: a replay is exact.
  let lives = 0
  const given = await (
    options.store ?? ((now) => memoryEventStore({ now, lifeIds: () => `L${++lives}` }))
  )(storeNow, faults)
  const store = 'instance' in given ? given.store : given
  const instanceOf = 'instance' in given ? () => given.instance() : () => store
  const faultsAtPort = options.store === undefined
  const schedule = random.fork('schedule')
  const queues = new SimQueues(world, faults, schedule.fork('queues'))
  const timers = new SimTimers(world, faults, schedule.fork('timers'))
  const spans = new ModelSpans()
  const ledger = new ToolLedger()
  const returned = new Map<string, { id: string; index: number; life: string }[]>()
  const snapshots = { read: 0, written: 0 }
  const wakeUpLedger = new WakeUpLedger()
  const script = withSummaries(users ? userScript(users.model) : workloadScript(plans))
  const effects = new EffectRuns()
  for (const ledger of users?.effects ?? []) ledger.reset()
  const messages = users?.messages ?? ['Hello']
  // Each turn's message from its own stream: the same whichever sessions a replay keeps.
  const say = users
    ? (sessionId: string, turn: number) =>
        random.fork(`message ${sessionId} ${turn}`).pick(messages)
    : undefined
  const ordering = plans.some((plan) => plan.turns.some((turn) => turn.kind === 'order'))
  /** The agent's definition in a process (`owner`: its tools' sleeps stop when it dies). */
  const definitionOf = (owner: () => number | undefined) =>
    users
      ? ({
          ...users.options,
          tools: countedTools(users.options.tools ?? {}, ledger),
        } as ReturnType<typeof workloadAgentOptions>)
      : workloadAgentOptions(world, ledger, owner, {
          handlers: ordering,
          serialTools: drawn.serialTools,
        })
  const policies = users ? { ...toolPolicies(users.options), workload: false } : undefined
  const latency = schedule.fork('latency')
  const models = new Map<number, LanguageModelV4>()
  const oversizedPrompts = new Set<string>()

  // Only its `wakeUpsFor`, which is pure: what the stream router sends.
  const router = agent({
    ...definitionOf(() => undefined),
    model: 'unused',
    store: memoryEventStore(),
    dispatcher: { wake: async () => {} },
    scheduler: { schedule: async () => {}, cancel: async () => 0 },
    logger: quiet,
  } as AgentOptions<ToolSet>)
  const storeOf = (owner: number): EventStore =>
    simStore(world, owner, instanceOf(), faultsAtPort ? faults : undefined, latency, {
      committed(_sessionId, events) {
        const owed = router.runtime.wakeUpsFor(events as StoredEvent[])
        // What the writer owes: its fast path sends them (the ledger checks).
        wakeUpLedger.owe(owner, owed, world.time, deadLetteredLanes(events))
        // The stream router: every committed append's wake-ups, soon, at the
        // news they are for (the fast path's copies collapse with them).
        world.after(latency.between(50, 800), undefined, () => queues.send(owed, 'router'))
      },
      failed: () => wakeUpLedger.excuse(owner, world.time),
      snapshot: (_sessionId, how) => snapshots[how]++,
      returned(sessionId, events) {
        returned.set(sessionId, [
          ...(returned.get(sessionId) ?? []),
          ...events.map(({ id, index, life }) => ({ id, index, life })),
        ])
      },
    })
  const dispatcherOf = (owner: number): Dispatcher => ({
    wake: (wakeUps) =>
      world.call(
        owner,
        `sqs.send(${wakeUps.map((w) => w.lane).join(', ')})`,
        latency.between(2, 15),
        () => {
          if (faults.strikes('sqs.send-failed')) {
            world.log(`p${owner}`, 'fault sqs.send-failed')
            wakeUpLedger.excuse(owner, world.time)
            throw new PipelineError(
              'SEND_FAILED',
              'Could not send 1 wake-up(s): ServiceUnavailable',
            )
          }
          wakeUpLedger.sent(wakeUps, world.time)
          // A wake-up that names its news is a fast path's; one that names
          // none, a recovery's (a reader's, or a recovery run's).
          queues.send(
            wakeUps.filter((wakeUp) => wakeUp.at !== undefined),
            'fast',
          )
          queues.send(
            wakeUps.filter((wakeUp) => wakeUp.at === undefined),
            'recovery',
          )
        },
      ),
  })

  const pool = new ProcessPool({
    world,
    queues,
    timers,
    faults,
    random: schedule.fork('pool'),
    ...processes,
    storeOf,
    dispatcherOf,
    onKill: (owner) => {
      spans.closeAllOf(owner)
      models.delete(owner)
      wakeUpLedger.excuse(owner, world.time)
    },
    onRun: (message) => wakeUpLedger.ran(message.wakeUp, message.origin, world.time),
    build: (parts): Agent => {
      clocks.set(parts.owner, parts.clock.now)
      const definition = definitionOf(() => parts.owner)
      const processModel = simModel(
        world,
        parts.owner,
        script,
        faults,
        latency,
        spans,
        () => workContext.getStore()?.sessionId,
        oversizedPrompts,
      )
      models.set(parts.owner, processModel)
      return agent({
        ...definition,
        tools: withCrashPoints(world, parts.owner, definition.tools),
        ...(model.kind === 'gateway'
          ? {
              model: SIM_GATEWAY_MODEL,
              modelCatalog: {
                url: 'https://catalog.simulated/v1/models',
                fetch: catalogFetch(world, parts.owner, faults, latency, model.contextWindow),
              },
            }
          : { model: processModel }),
        store: parts.store,
        dispatcher: parts.dispatcher,
        scheduler: parts.scheduler,
        now: parts.clock.now,
        timers: parts.clock.timers,
        claimTtlMs: CLAIM_TTL_MS,
        logger: quiet,
      } as AgentOptions<ToolSet>)
    },
  })
  const undoProvider = installDefaultProvider(gatewayProvider(models))
  const undoEffects = observeEffects((ledger, what, performed) =>
    effects.record(ledger, what, performed),
  )
  try {
    for (let n = 0; n < processes.min; n++) pool.start()
    return await runAndCheck()
  } finally {
    undoEffects()
    undoProvider()
    for (const process of pool.live()) process.agent.runtime.close()
    router.runtime.close()
  }

  async function runAndCheck(): Promise<SimulationReport> {
    const records = new Map<string, UserRecord>()
    const browsers = new Map<string, BrowserRecord>()
    const away = new Map<string, Promise<void>>()
    const context = {
      world,
      pool,
      random: schedule.fork('users'),
      away,
      ...(say ? { say } : {}),
    }
    for (const plan of plans) {
      const played = playSession(context, plan)
      // Each session's browser from its own stream (a replay of one session keeps it).
      const browsing = random.fork(`browser ${plan.sessionId}`)
      // Browsers on the memory store only: another store's tail may poll on real time.
      if (options.store === undefined && browsing.chance(0.6)) {
        void browse({ world, pool, random: browsing, store, away }, plan.sessionId, played).then(
          (record) => browsers.set(plan.sessionId, record),
          (error: unknown) =>
            browsers.set(plan.sessionId, {
              sessionId: plan.sessionId,
              applied: [],
              problems: [`the browser failed: ${error instanceof Error ? error.stack : error}`],
              drops: 0,
              reloads: 0,
            }),
        )
      }
      void played.then(
        (record) => records.set(plan.sessionId, record),
        (error: unknown) =>
          records.set(plan.sessionId, {
            ...emptyRecord(plan.sessionId),
            problems: [
              `the user's script failed: ${error instanceof Error ? error.stack : String(error)}`,
            ],
          }),
      )
    }
    const end = await world.run()
    // What the run's processes did (the checks' own reads of the sessions come after).
    const snapshotsInRun = { ...snapshots }

    // The checks: no more faults or crashes; what the processes say is read through the world.
    faults.calm = true
    const { failures, events, compactions } = await checkSessions({
      sessions: plans.map((plan) => plan.sessionId),
      store,
      world,
      pool,
      records,
      returned,
      spans,
      ledger,
      end,
      browsers,
      wakeUps: wakeUpLedger,
      ...(policies ? { policies, effects } : {}),
    })
    return {
      seed: options.seed,
      options: {
        sessions,
        turns,
        processes,
        model,
        faults: allowed,
        ...(options.only ? { only: options.only } : {}),
        ...(options.kinds ? { kinds: options.kinds } : {}),
        ...(users ? { agent: users } : {}),
        ...(day ? { day } : {}),
        ...(!users && drawn.serialTools ? { serialTools: true } : {}),
      },
      end,
      failures,
      trace: world.trace,
      digest: world.digest,
      figures: {
        steps: world.steps,
        simulatedMs: world.time - START,
        sessions: plans.length,
        events,
        modelCalls: spans.spans.length,
        compactions,
        processes: pool.started,
        kills,
        latestWakeUpMs: wakeUpLedger.latestMs,
        freezes,
        restarts: [...records.values()].reduce((sum, record) => sum + record.lives - 1, 0),
        messages: queues.sent,
        timersFired: timers.fired,
        snapshotsWritten: snapshotsInRun.written,
        snapshotsRead: snapshotsInRun.read,
        faults: { ...faults.injected },
      },
    }
  }
}

/** The lanes a batch's dead letters gave up on: that write wakes them on purpose not. */
function deadLetteredLanes(events: readonly { type: string; payload: unknown }[]): Set<string> {
  const lanes = new Set<string>()
  for (const event of events) {
    const lane = (event.payload as { lane?: unknown } | null)?.lane
    if (event.type === 'ai.handler.dead-lettered' && typeof lane === 'string') lanes.add(lane)
  }
  return lanes
}
