import type { EventStore } from '../../log/event-store.ts'
import type { SessionFailure } from './check-sessions.ts'
import type { FaultKind, Faults } from './faults.ts'
import type { SimulatedAgent } from './user-agent.ts'
import type { TurnKind } from './workload.ts'
import type { TraceLine, WorldEnd } from './world.ts'

// What `simulate()` (./simulation.ts) takes and gives back; its own file so
// the parts of a run (./simulation-*.ts) name them without a cycle.

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
  /**
   * A deploy mid-run (the workload's agent only): at a time drawn from the
   * seed, version `sim-v2` of the workload agent replaces `sim-v1`, whose
   * `closeTicket` takes only two-digit ticket numbers (its input schema
   * changed): the processes that are up finish what they run and take
   * nothing new, new ones start on the new code, so both versions work on
   * the same sessions for a while, and calls the old version made are run
   * (or refused) by the new one.
   */
  deploys?: boolean
}

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
    /** The run had a deploy (`deploys: true`). */
    deploys?: boolean
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
    /** With a deploy: processes that were up at it and ran on (old code) until idle. */
    retired: number
    faults: Partial<Record<FaultKind, number>>
  }
}
