import type { LanguageModelV4 } from '@ai-sdk/provider'
import type { ToolSet } from 'ai'
import { type Agent, agent } from '../../agent/wiring/agent.ts'
import type { AgentOptions } from '../../agent/wiring/agent-options.ts'
import { PipelineError } from '../../aws/errors.ts'
import type { StoredEvent } from '../../log/event.ts'
import type { EventStore } from '../../log/event-store.ts'
import type { Dispatcher } from '../../runtime/wake-up.ts'
import { memoryEventStore } from '../../stores/memory/memory-event-store.ts'
import type { Faults } from './faults.ts'
import type { Random } from './random.ts'
import { catalogFetch, SIM_GATEWAY_MODEL } from './sim-gateway.ts'
import { type ModelSpans, simModel } from './sim-model.ts'
import { ProcessPool, workContext } from './sim-process.ts'
import { SimQueues } from './sim-queues.ts'
import { simStore } from './sim-store.ts'
import { SimTimers } from './sim-timers.ts'
import type { RunShape } from './simulation-shape.ts'
import { CLAIM_TTL_MS, type Tally } from './simulation-world.ts'
import { withCrashPoints } from './tool-crash-points.ts'
import { countedTools, EffectRuns, toolPolicies, userScript, withSummaries } from './user-agent.ts'
import type { WakeUpLedger } from './wake-up-ledger.ts'
import {
  ToolLedger,
  type WorkloadVersion,
  workloadAgentOptions,
  workloadScript,
} from './workload-agent.ts'
import type { World } from './world.ts'

// The parts of one simulated run and how they are wired: the store each
// process sees, its dispatcher, the agent it builds, the pool of processes,
// and the stream router. `simulate()` (./simulation.ts) makes them in this
// order, the order a replay depends on.

const quiet = { info() {}, warn() {}, error() {} }

/** What a run is made of before its processes start. */
export interface RunBase {
  shape: RunShape
  random: Random
  faults: Faults
  tally: Tally
  world: World
  spans: ModelSpans
  wakeUpLedger: WakeUpLedger
  /** Each process's clock, by process (the store reads the caller's). */
  clocks: Map<number, () => number>
  store: EventStore
  instanceOf: () => EventStore
  /** The memory store meets the `store.*` faults at its port; a given store where it meets them itself. */
  faultsAtPort: boolean
}

/** A run, wired. */
export interface SimRun extends RunBase {
  schedule: Random
  queues: SimQueues
  timers: SimTimers
  ledger: ToolLedger
  returned: Map<string, { id: string; index: number; life: string }[]>
  snapshots: { read: number; written: number }
  effects: EffectRuns
  say?: (sessionId: string, turn: number) => string
  policies?: ReturnType<typeof toolPolicies> & { workload: false }
  models: Map<number, LanguageModelV4>
  pool: ProcessPool
  router: Agent
  /** Whether the deploy has happened: processes then start on version 2 (`deploys` only). */
  deployment: { deployed: boolean }
}

type Definition = ReturnType<typeof workloadAgentOptions>

/** The agent's definition in a process (`owner`: its tools' sleeps stop when it dies). */
function definitions(
  base: RunBase,
  ledger: ToolLedger,
): (owner: () => number | undefined, version?: WorkloadVersion) => Definition {
  const { users, plans, serialTools } = base.shape
  const ordering = plans.some((plan) => plan.turns.some((turn) => turn.kind === 'order'))
  return (owner, version) =>
    users
      ? ({
          ...users.options,
          tools: countedTools(users.options.tools ?? {}, ledger),
        } as Definition)
      : workloadAgentOptions(base.world, ledger, owner, {
          handlers: ordering,
          serialTools,
          ...(version ? { version } : {}),
        })
}

/** Wires the run's parts, in the order the seed's streams and the world's agenda expect. */
export function wireRun(base: RunBase): SimRun {
  const { shape, random, world, faults } = base
  const users = shape.users
  const schedule = random.fork('schedule')
  const queues = new SimQueues(world, faults, schedule.fork('queues'))
  const timers = new SimTimers(world, faults, schedule.fork('timers'))
  const ledger = new ToolLedger()
  const scriptOf = (version?: WorkloadVersion) =>
    withSummaries(users ? userScript(users.model) : workloadScript(shape.plans, version))
  const script = scriptOf()
  const effects = new EffectRuns()
  for (const effectLedger of users?.effects ?? []) effectLedger.reset()
  const messages = users?.messages ?? ['Hello']
  const definitionOf = definitions(base, ledger)
  const run = {
    ...base,
    schedule,
    queues,
    timers,
    ledger,
    returned: new Map(),
    snapshots: { read: 0, written: 0 },
    effects,
    // Each turn's message from its own stream: the same whichever sessions a replay keeps.
    ...(users
      ? {
          say: (sessionId: string, turn: number) =>
            random.fork(`message ${sessionId} ${turn}`).pick(messages),
          policies: { ...toolPolicies(users.options), workload: false as const },
        }
      : {}),
    models: new Map(),
    router: routerOf(definitionOf),
    deployment: { deployed: false },
  } satisfies Omit<SimRun, 'pool'>
  const latency = schedule.fork('latency')
  const oversizedPrompts = new Set<string>()
  // With a deploy, each process runs the version that was live when it started.
  const scripts =
    shape.deployAt === undefined
      ? undefined
      : { 'sim-v1': scriptOf('sim-v1'), 'sim-v2': scriptOf('sim-v2') }
  const build = (parts: AgentParts): Agent => {
    if (!scripts) return buildAgent(run, parts, definitionOf, script, latency, oversizedPrompts)
    const version = run.deployment.deployed ? 'sim-v2' : 'sim-v1'
    const versioned = (owner: () => number | undefined) => definitionOf(owner, version)
    return buildAgent(run, parts, versioned, scripts[version], latency, oversizedPrompts)
  }
  const pool = new ProcessPool({
    world,
    queues,
    timers,
    faults,
    random: schedule.fork('pool'),
    ...shape.processes,
    storeOf: (owner) => storeOf(run, owner, latency),
    dispatcherOf: (owner) => dispatcherOf(run, owner, latency),
    onKill: (owner) => {
      base.spans.closeAllOf(owner)
      run.models.delete(owner)
      base.wakeUpLedger.excuse(owner, world.time)
    },
    onRun: (message) => base.wakeUpLedger.ran(message.wakeUp, message.origin, world.time),
    build,
  })
  return { ...run, pool }
}

/** Only its `wakeUpsFor`, which is pure: what the stream router sends. */
function routerOf(definitionOf: (owner: () => number | undefined) => Definition): Agent {
  return agent({
    ...definitionOf(() => undefined),
    model: 'unused',
    store: memoryEventStore(),
    dispatcher: { wake: async () => {} },
    scheduler: { schedule: async () => {}, cancel: async () => 0 },
    logger: quiet,
  } as AgentOptions<ToolSet>)
}

type AgentParts = Parameters<ConstructorParameters<typeof ProcessPool>[0]['build']>[0]

function buildAgent(
  run: Omit<SimRun, 'pool'>,
  parts: AgentParts,
  definitionOf: (owner: () => number | undefined) => Definition,
  script: Parameters<typeof simModel>[2],
  latency: Random,
  oversizedPrompts: Set<string>,
): Agent {
  const { world, faults } = run
  const model = run.shape.model
  run.clocks.set(parts.owner, parts.clock.now)
  const definition = definitionOf(() => parts.owner)
  const processModel = simModel(
    world,
    parts.owner,
    script,
    faults,
    latency,
    run.spans,
    () => workContext.getStore()?.sessionId,
    oversizedPrompts,
  )
  run.models.set(parts.owner, processModel)
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
}

/** The store a process sees: the run's, through the world, with the faults at its port. */
function storeOf(run: Omit<SimRun, 'pool'>, owner: number, latency: Random): EventStore {
  const { world, wakeUpLedger, queues, snapshots, returned } = run
  return simStore(
    world,
    owner,
    run.instanceOf(),
    run.faultsAtPort ? run.faults : undefined,
    latency,
    {
      committed(_sessionId, events) {
        const owed = run.router.runtime.wakeUpsFor(events as StoredEvent[])
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
    },
  )
}

/** A process's SQS sends: fast-path wake-ups (they name their news) and recovery ones. */
function dispatcherOf(run: Omit<SimRun, 'pool'>, owner: number, latency: Random): Dispatcher {
  const { world, faults, wakeUpLedger, queues } = run
  return {
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
