import { Agenda, type AgendaEntry } from './agenda.ts'
import { hash32 } from './random.ts'

/** Where a crash lands around a call: before it took effect, or after (its effect durable, unseen). */
type CrashWhere = 'before' | 'after'

/** One line of what a world did: a step, at a simulated time, by someone. */
export interface TraceLine {
  step: number
  at: number
  who: string
  what: string
}

export interface WorldOptions {
  /** The simulated clock's start (epoch ms). */
  start: number
  /** Agenda entries a run may fire before it counts as a livelock. */
  maxSteps: number
  /** Simulated time a run may take before it counts as one that never quiesces. */
  maxDurationMs: number
  /** Asked at each call of a live process: crash it there? */
  crashAt?: (owner: number, label: string) => CrashWhere | undefined
}

/** How a world's run ended: nothing left to do, or a budget ran out. */
export type WorldEnd = 'quiet' | 'steps' | 'time'

const NEVER = new Promise<never>(() => {})

/** Lets every promise chain of the processes run until each waits on the agenda again. */
const drain = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/**
 * A simulated world: one clock, one agenda of what happens next, and the
 * processes that live in it. Everything the runtime waits on (a store call,
 * a queue, a timer, a model's next part) is an entry on the agenda, fired
 * one at a time in time order, after which the world lets every process run
 * until it waits again. The same seed then makes the same run: the same
 * entries in the same order, the same trace.
 *
 * A process that dies (killed at a call, or its invocation timed out) does
 * nothing more: its entries are dropped and its pending calls never answer.
 */
export class World {
  time: number
  steps = 0
  readonly trace: TraceLine[] = []
  /** A digest of the whole trace: two runs of one seed have the same one. */
  digest = 0
  private readonly agenda = new Agenda()
  private readonly alive = new Set<number>()
  private readonly killHooks = new Map<number, (() => void)[]>()
  private nextOwner = 1

  readonly options: WorldOptions

  constructor(options: WorldOptions) {
    this.options = options
    this.time = options.start
  }

  log(who: string, what: string): void {
    this.trace.push({ step: this.steps, at: this.time, who, what })
    this.digest = hash32(`${this.time} ${who} ${what}`, this.digest)
  }

  /** A new live process's ID. */
  spawn(): number {
    const owner = this.nextOwner++
    this.alive.add(owner)
    return owner
  }

  isAlive(owner: number | undefined): boolean {
    return owner === undefined || this.alive.has(owner)
  }

  /** Calls `hook` when the process dies (its model calls end, its slots free). */
  onKill(owner: number, hook: () => void): void {
    this.killHooks.set(owner, [...(this.killHooks.get(owner) ?? []), hook])
  }

  kill(owner: number, why: string): void {
    if (!this.alive.delete(owner)) return
    this.log(`p${owner}`, `killed ${why}`)
    for (const hook of this.killHooks.get(owner) ?? []) hook()
    this.killHooks.delete(owner)
  }

  /** Runs `run` at simulated time `at` (no earlier than now), unless its owner died by then. */
  at(at: number, owner: number | undefined, run: AgendaEntry['run']): AgendaEntry {
    return this.agenda.add(Math.max(at, this.time), owner, run)
  }

  after(ms: number, owner: number | undefined, run: AgendaEntry['run']): AgendaEntry {
    return this.at(this.time + Math.max(0, ms), owner, run)
  }

  /** Resolves after `ms` of simulated time, or at once when `signal` aborts. */
  sleep(owner: number | undefined, ms: number, signal?: AbortSignal): Promise<void> {
    if (!this.isAlive(owner)) return NEVER
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve()
      const entry = this.after(ms, owner, () => {
        signal?.removeEventListener('abort', done)
        resolve()
      })
      function done(): void {
        entry.cancelled = true
        resolve()
      }
      signal?.addEventListener('abort', done, { once: true })
    })
  }

  /**
   * A call of a process to the world outside it (a store, a queue, a
   * scheduler, a model), answered after `latencyMs`: `perform` runs then,
   * unless the world crashes the process before it, or after it (its effect
   * is durable, the process never hears of it).
   */
  call<T>(
    owner: number | undefined,
    label: string,
    latencyMs: number,
    perform: () => T | Promise<T>,
  ): Promise<T> {
    if (!this.isAlive(owner)) return NEVER
    return new Promise<T>((resolve, reject) => {
      this.after(latencyMs, owner, async () => {
        const crash = owner === undefined ? undefined : this.options.crashAt?.(owner, label)
        this.log(owner === undefined ? 'world' : `p${owner}`, label)
        if (owner !== undefined && crash === 'before') return this.kill(owner, `before ${label}`)
        let outcome: { ok: true; value: T } | { ok: false; error: unknown }
        try {
          outcome = { ok: true, value: await perform() }
        } catch (error) {
          outcome = { ok: false, error }
        }
        if (owner !== undefined && crash === 'after') return this.kill(owner, `after ${label}`)
        if (!this.isAlive(owner)) return
        if (outcome.ok) resolve(outcome.value)
        else reject(outcome.error)
      })
    })
  }

  /**
   * More budget, from now: what the checks after a run that ran out of its
   * own (a livelock) need to read the processes' states through the world.
   */
  extend({ steps, ms }: { steps: number; ms: number }): void {
    this.options.maxSteps = this.steps + steps
    this.options.maxDurationMs = this.time - this.options.start + ms
  }

  /** Fires the agenda until nothing is left on it, or a budget runs out (or `until` settles). */
  async run(until?: Promise<unknown>): Promise<WorldEnd> {
    const deadline = this.options.start + this.options.maxDurationMs
    let settled = false
    void until?.then(
      () => (settled = true),
      () => (settled = true),
    )
    for (;;) {
      await drain()
      if (settled) return 'quiet'
      const entry = this.agenda.take()
      if (!entry) return 'quiet'
      if (!this.isAlive(entry.owner)) continue
      if (entry.at > deadline) return 'time'
      if (++this.steps > this.options.maxSteps) return 'steps'
      this.time = Math.max(this.time, entry.at)
      await entry.run()
    }
  }
}
