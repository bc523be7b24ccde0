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
  /**
   * Asked at each call of a live process: freeze it there, before the call
   * goes out, for how long (simulated ms), and may another process's work on
   * the same session thaw it early (see `freeze`)?
   */
  freezeAt?: (owner: number, label: string) => { ms: number; racy: boolean } | undefined
}

/** A frozen process: what it would have done meanwhile waits for its thaw. */
interface Freeze {
  since: number
  /** The session of the work it was doing, when it was one's (what a race thaws it for). */
  sessionId: string | undefined
  /** Thawed by the next read of another process's work on that session, past `racyAfterMs`. */
  racy: boolean
  parked: AgendaEntry[]
}

/** How a world's run ended: nothing left to do, or a budget ran out. */
export type WorldEnd = 'quiet' | 'steps' | 'time'

const NEVER = new Promise<never>(() => {})

/** The session a call's label names (`store.append(s0: ...)`), if it does. */
const sessionOfLabel = (label: string): string | undefined => /\(([^\s:),]+)[:)]/.exec(label)?.[1]

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
  private readonly frozen = new Map<number, Freeze>()
  private readonly freezeHooks: ((owner: number) => void)[] = []
  private readonly thawedAt = new Map<number, number>()
  private nextOwner = 1
  /** How long a racy freeze lasts at least before a race may thaw it (a claim's TTL: it ran out). */
  racyAfterMs = 0

  readonly options: WorldOptions

  constructor(options: WorldOptions) {
    this.options = options
    this.time = options.start
  }

  log(who: string, what: string): void {
    this.trace.push({ step: this.steps, at: this.time, who, what })
    // With its step: an entry that logs nothing still moves every later line's.
    this.digest = hash32(`${this.steps} ${this.time} ${who} ${what}`, this.digest)
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
    if (this.frozen.delete(owner)) this.log(`p${owner}`, `killed ${why}`)
    for (const hook of this.killHooks.get(owner) ?? []) hook()
    this.killHooks.delete(owner)
  }

  /**
   * Freezes a live process for `ms`: a sandbox stalled (a long GC pause, a
   * starved or migrated VM) while the world goes on. Nothing of it runs
   * meanwhile, not its calls' answers, its timers or its heartbeats, so its
   * claims run out and its messages' visibility leases end; then it thaws
   * and carries on where it was, as if nothing happened, writing with
   * what it knew. A racy freeze is the adversary's: it thaws as soon as
   * another process's work reads the same session, once the freeze is
   * `racyAfterMs` old (the moment a takeover reads the log before it takes
   * the claim), so the frozen write lands in the window a takeover must
   * not decide in.
   */
  freeze(owner: number, ms: number, options: { sessionId?: string; racy?: boolean } = {}): void {
    if (!this.alive.has(owner) || this.frozen.has(owner)) return
    const freeze: Freeze = {
      since: this.time,
      sessionId: options.sessionId,
      racy: options.racy ?? false,
      parked: [],
    }
    this.frozen.set(owner, freeze)
    this.log(`p${owner}`, `frozen for ${ms} ms${freeze.racy ? ' (racy)' : ''}`)
    for (const hook of this.freezeHooks) hook(owner)
    this.after(ms, undefined, () => {
      if (this.frozen.get(owner) === freeze) this.thaw(owner, 'on time')
    })
  }

  /** Calls `hook` whenever a process freezes (the pool: its messages' leases stop being renewed). */
  onFreeze(hook: (owner: number) => void): void {
    this.freezeHooks.push(hook)
  }

  /** Whether the process thawed within the last `ms`. */
  thawedWithin(owner: number, ms: number): boolean {
    const at = this.thawedAt.get(owner)
    return at !== undefined && this.time - at <= ms
  }

  isFrozen(owner: number): boolean {
    return this.frozen.has(owner)
  }

  /** Another process's work read `sessionId`: a racy freeze on it old enough thaws now. */
  raced(sessionId: string, by: number): void {
    for (const [owner, freeze] of this.frozen) {
      if (owner === by || !freeze.racy || freeze.sessionId !== sessionId) continue
      if (this.time - freeze.since < this.racyAfterMs) continue
      this.thaw(owner, `as p${by} reads ${sessionId}`)
    }
  }

  private thaw(owner: number, why: string): void {
    const freeze = this.frozen.get(owner)
    if (!freeze) return
    this.frozen.delete(owner)
    this.thawedAt.set(owner, this.time)
    this.log(`p${owner}`, `thawed ${why}, after ${this.time - freeze.since} ms`)
    // What came due meanwhile runs now, in the order it came due.
    for (const entry of freeze.parked) {
      this.agenda.add(this.time, owner, () => (entry.cancelled ? undefined : entry.run()))
    }
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
    /** May the process freeze at this call (`freezeAt` is asked)? */
    { freezable = false }: { freezable?: boolean } = {},
  ): Promise<T> {
    if (!this.isAlive(owner)) return NEVER
    return new Promise<T>((resolve, reject) => {
      this.after(latencyMs, owner, async () => {
        const freeze =
          owner === undefined || !freezable ? undefined : this.options.freezeAt?.(owner, label)
        if (owner !== undefined && freeze) {
          this.freeze(owner, freeze.ms, {
            racy: freeze.racy,
            ...(sessionOfLabel(label) ? { sessionId: sessionOfLabel(label) } : {}),
          })
          // The call goes out when the process thaws.
          const parked = this.frozen.get(owner)?.parked
          parked?.push({
            at: this.time,
            seq: 0,
            owner,
            cancelled: false,
            run: () => this.perform(owner, label, perform, resolve, reject),
          })
          return
        }
        await this.perform(owner, label, perform, resolve, reject)
      })
    })
  }

  private async perform<T>(
    owner: number | undefined,
    label: string,
    perform: () => T | Promise<T>,
    resolve: (value: T) => void,
    reject: (error: unknown) => void,
  ): Promise<void> {
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
      const frozen = entry.owner === undefined ? undefined : this.frozen.get(entry.owner)
      if (frozen) {
        frozen.parked.push(entry)
        continue
      }
      if (++this.steps > this.options.maxSteps) return 'steps'
      this.time = Math.max(this.time, entry.at)
      await entry.run()
    }
  }
}
