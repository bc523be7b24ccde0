import { AsyncLocalStorage } from 'node:async_hooks'
import type { Agent } from '../../agent/wiring/agent.ts'
import { PipelineError } from '../../aws/errors.ts'
import type { EventStore } from '../../log/event-store.ts'
import { messageOf } from '../../log/message-of.ts'
import { LANES, type Lane } from '../../runtime/lane-table.ts'
import type { Timer } from '../../runtime/scheduler.ts'
import type { Dispatcher, WakeUp } from '../../runtime/wake-up.ts'
import type { Faults } from './faults.ts'
import type { Random } from './random.ts'
import { type ProcessClock, processClock } from './sim-clock.ts'
import type { QueueMessage, SimQueues } from './sim-queues.ts'
import type { SimTimers } from './sim-timers.ts'
import type { World } from './world.ts'

/** Function timeouts by queue (the construct's, pipeline-functions.ts). */
const TIMEOUT_MS: Record<string, number> = {
  admission: 60_000,
  generation: 600_000,
  tools: 300_000,
  handlers: 300_000,
}
/** The construct's redrive `maxReceiveCount`. */
const MAX_RECEIVE_COUNT = 5
/** The visibility lease: a dead consumer's message comes back this long after its last renewal. */
const LEASE_MS = 30_000
/** A failed record's backoff (the lease's `retryDelaySeconds`, doubled per receive, capped). */
const retryDelayMs = (receiveCount: number, random: Random): number => {
  const full = Math.min(60_000, 2_000 * 2 ** (receiveCount - 1))
  return Math.floor(full / 2 + random.next() * (full / 2))
}
/** What the lane handler keeps of an invocation's time, not waiting for a claim. */
const CLAIM_WAIT_MARGIN_MS = 5_000

/** The session a process's work is for, where the model and tools ask. */
export const workContext = new AsyncLocalStorage<{ sessionId: string; owner: number }>()

/** What a process's agent is built from: ports into the world, on its own clock. */
interface ProcessParts {
  owner: number
  store: EventStore
  dispatcher: Dispatcher
  scheduler: ReturnType<SimTimers['port']>
  clock: ProcessClock
}

export interface PoolOptions {
  world: World
  queues: SimQueues
  timers: SimTimers
  faults: Faults
  random: Random
  /** Builds a process's agent on its ports (a fresh one per process: its own caches). */
  build: (parts: ProcessParts) => Agent
  /** Processes kept alive (a dead one is replaced after a cold start). */
  min: number
  /** Processes the pool scales up to when every one is busy. */
  max: number
  /** Invocations a process runs at once (Lambda: 1). */
  slots: number
  /** The store port of a process, from the shared store. */
  storeOf: (owner: number) => EventStore
  /** The wake-ups a process sends, as sent to the queues (deduplicated by the news they are for). */
  dispatcherOf: (owner: number) => Dispatcher
  onKill: (owner: number) => void
  /** A process starts running a message (the wake-up ledger counts the fast path's). */
  onRun?: (message: QueueMessage) => void
}

export interface SimProcess {
  owner: number
  agent: Agent
  clock: ProcessClock
  busy: number
  inFlight: Set<QueueMessage>
  /** When it last took a request, a message or a timer (simulated ms): what an idle reclaim looks at. */
  lastActive: number
  /** A deploy came since it started: it finishes what it runs and takes nothing new. */
  retired?: boolean
}

/**
 * The containers: processes over the one store, each with its own agent
 * (its own caches and in-process work), started cold, killed (at a call, or
 * by its invocation's timeout) and replaced. Each takes queue messages as
 * the Lambda lane handler does: runs the wake-up, waits in the invocation
 * for work a live attempt holds, fails the record past its time
 * (WORK_HELD), and dead-letters it on its last receive.
 */
export class ProcessPool {
  readonly processes = new Map<number, SimProcess>()
  started = 0
  /** Processes a deploy retired. */
  retired = 0
  private starting = 0

  private readonly options: PoolOptions

  constructor(options: PoolOptions) {
    this.options = options
    options.queues.consume((message) => this.take(message))
    options.timers.fireOn((timer) => this.fire(timer))
    options.world.onFreeze((owner) => this.leasesLapse(owner))
  }

  /**
   * A frozen process renews no visibility lease: each message it holds comes
   * back for another consumer once its lease runs out, while the frozen one
   * still works on it. Its receipt is then stale: when it thaws and
   * finishes, its delete (or its failure) no longer touches the message.
   */
  private leasesLapse(owner: number): void {
    const { world, queues } = this.options
    const process = this.processes.get(owner)
    if (!process) return
    for (const message of process.inFlight) {
      const receipt = message.receiveCount
      world.after(LEASE_MS, undefined, () => {
        if (!world.isFrozen(owner) || !process.inFlight.has(message)) return
        if (message.receiveCount !== receipt) return
        process.inFlight.delete(message)
        world.log('sqs', `lease of ${message.id} ran out in frozen p${owner}: visible again`)
        queues.retryAt(message, world.time)
      })
    }
  }

  live(): SimProcess[] {
    return [...this.processes.values()]
  }

  /** The processes that take new work: a deploy retires the ones that were up. */
  private serving(): SimProcess[] {
    return this.live().filter((process) => !process.retired)
  }

  /**
   * A deploy, as Lambda does one: the sandboxes that are up finish the
   * invocations they run (on the old code) and get no new ones; new
   * sandboxes start on the new code (`build` says which). A retired one
   * dies once it is idle.
   */
  deploy(): void {
    const { world } = this.options
    for (const process of this.live()) {
      process.retired = true
      this.retired++
      if (process.busy === 0 && process.inFlight.size === 0)
        world.kill(process.owner, 'retired by the deploy')
    }
    this.replenish()
  }

  start(): SimProcess {
    const { world, faults } = this.options
    const owner = world.spawn()
    const skew = faults.enabled('clock.skew') ? faults.between(-1_000, 1_000) : 0
    const clock = processClock(world, owner, skew)
    const agent = this.options.build({
      owner,
      store: this.options.storeOf(owner),
      dispatcher: this.options.dispatcherOf(owner),
      scheduler: this.options.timers.port(owner),
      clock,
    })
    const process: SimProcess = {
      owner,
      agent,
      clock,
      busy: 0,
      inFlight: new Set(),
      lastActive: world.time,
    }
    if (faults.strikes('clock.jump')) {
      const ms = faults.pick([-1, 1]) * faults.between(1_000, 10_000)
      world.after(faults.between(500, 90_000), owner, () => {
        clock.jump(ms)
        world.log(`p${owner}`, `fault clock.jump ${ms > 0 ? '+' : ''}${ms} ms`)
      })
    }
    this.processes.set(owner, process)
    this.started++
    world.log(`p${owner}`, `started${skew ? ` (clock ${skew > 0 ? '+' : ''}${skew} ms)` : ''}`)
    world.onKill(owner, () => this.died(process))
    return process
  }

  private died(process: SimProcess): void {
    const { world, queues } = this.options
    this.processes.delete(process.owner)
    this.options.onKill(process.owner)
    for (const message of process.inFlight) queues.retryAt(message, world.time + LEASE_MS)
    process.inFlight.clear()
    this.replenish()
  }

  /** Keeps `min` processes, each new one after a cold start. */
  replenish(): void {
    const { world, random } = this.options
    while (this.serving().length + this.starting < this.options.min) {
      this.starting++
      world.after(random.between(100, 1_500), undefined, () => {
        this.starting--
        this.start()
        this.options.queues.pump()
      })
    }
  }

  /** A random live process, for a request or a timer (undefined while none lives). */
  any(): SimProcess | undefined {
    const live = this.serving()
    if (live.length === 0) return undefined
    const process = this.options.random.pick(live)
    process.lastActive = this.options.world.time
    return process
  }

  /**
   * Lambda reclaims the sandboxes that served nothing for `idleMs` (no
   * invocation, request or timer): each dies, and those kept warm are
   * replaced by cold ones, which read their sessions anew (from a stored
   * snapshot, where one is). Returns how many it reclaimed.
   */
  reclaimIdle(idleMs: number): number {
    const { world } = this.options
    const idle = this.live().filter(
      (process) =>
        process.busy === 0 &&
        process.inFlight.size === 0 &&
        !world.isFrozen(process.owner) &&
        world.time - process.lastActive >= idleMs,
    )
    for (const process of idle) {
      world.log(`p${process.owner}`, `reclaimed, idle since ${process.lastActive}`)
      world.kill(process.owner, 'reclaimed (idle)')
    }
    return idle.length
  }

  private take(message: QueueMessage): boolean {
    // A frozen sandbox polls for nothing.
    const free = this.serving().filter(
      (process) => process.busy < this.options.slots && !this.options.world.isFrozen(process.owner),
    )
    if (free.length === 0) {
      if (this.serving().length + this.starting < this.options.max) {
        this.starting++
        this.options.world.after(this.options.random.between(100, 1_500), undefined, () => {
          this.starting--
          this.start()
          this.options.queues.pump()
        })
      }
      return false
    }
    const process = this.options.random.pick(free)
    void this.invoke(process, message)
    return true
  }

  private async invoke(process: SimProcess, message: QueueMessage): Promise<void> {
    const { world, queues, random } = this.options
    const { owner, agent } = process
    const { wakeUp } = message
    process.busy++
    process.lastActive = world.time
    process.inFlight.add(message)
    const queue = LANES[wakeUp.lane as Lane]?.queue ?? wakeUp.lane
    const deadline = world.time + (TIMEOUT_MS[queue] ?? 60_000)
    // Lambda ends an invocation at its timeout, and its sandbox with it.
    const timeout = world.at(deadline, owner, () =>
      world.kill(owner, `by its ${queue} invocation's timeout`),
    )
    const who = `p${owner}`
    this.options.onRun?.(message)
    try {
      await workContext.run({ sessionId: wakeUp.sessionId, owner }, () =>
        runWaitingForClaims(world, process, wakeUp, deadline - CLAIM_WAIT_MARGIN_MS),
      )
      timeout.cancelled = true
      world.log(who, `done ${message.id} ${wakeUp.lane} ${wakeUp.sessionId}`)
      if (process.inFlight.delete(message)) queues.ack(message)
      else world.log(who, `its receipt of ${message.id} is stale: the delete does nothing`)
    } catch (error) {
      timeout.cancelled = true
      if (!process.inFlight.has(message)) {
        world.log(who, `failed ${message.id} on a stale receipt: ${messageOf(error)}`)
        return
      }
      const last = message.receiveCount >= MAX_RECEIVE_COUNT
      world.log(
        who,
        `failed ${message.id} ${wakeUp.lane} ${wakeUp.sessionId} (receive ${message.receiveCount}): ${messageOf(error)}`,
      )
      if (last) {
        await workContext
          .run({ sessionId: wakeUp.sessionId, owner }, () =>
            agent.runtime.deadLetter(wakeUp, {
              error,
              attempts: message.receiveCount,
              occurrence: message.id,
            }),
          )
          .catch((deadLetterError: unknown) =>
            world.log(who, `could not record the dead letter: ${messageOf(deadLetterError)}`),
          )
        process.inFlight.delete(message)
        queues.drop(message)
      } else {
        process.inFlight.delete(message)
        queues.retryAt(message, world.time + retryDelayMs(message.receiveCount, random))
      }
    } finally {
      process.busy--
      process.lastActive = world.time
      if (process.retired && process.busy === 0 && process.inFlight.size === 0)
        world.kill(owner, 'retired by the deploy, its last invocation done')
      queues.pump()
    }
  }

  private fire(timer: Timer): Promise<void> {
    const process = this.any()
    if (!process) return Promise.reject(new Error('no process is up'))
    const { world } = this.options
    return withTimeout(
      world,
      workContext.run({ sessionId: timer.sessionId, owner: process.owner }, () =>
        process.agent.runtime.fireTimer(timer),
      ),
      60_000,
    )
  }
}

/** `deadline` is the invocation's (Lambda's, world time); `retryAt` is the process's clock. */
async function runWaitingForClaims(
  world: World,
  { owner, agent, clock }: SimProcess,
  wakeUp: WakeUp,
  deadline: number,
): Promise<void> {
  for (;;) {
    const outcome = await agent.runtime.run(wakeUp)
    if (outcome.kind !== 'held') return
    const waitMs = Math.max(0, outcome.retryAt - clock.now())
    if (world.time + waitMs >= deadline) {
      throw new PipelineError(
        'WORK_HELD',
        `held until ${outcome.retryAt}, past the invocation's time`,
      )
    }
    await world.sleep(owner, waitMs + 5)
  }
}

/** `promise`, or a failure after `ms` of simulated time (a request to a process that died never answers). */
export function withTimeout<T>(world: World, promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = world.after(ms, undefined, () => reject(new Error(`no answer in ${ms} ms`)))
    promise.then(
      (value) => {
        timer.cancelled = true
        resolve(value)
      },
      (error: unknown) => {
        timer.cancelled = true
        reject(error)
      },
    )
  })
}
