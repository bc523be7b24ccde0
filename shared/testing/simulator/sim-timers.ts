import { TimerConflictError } from '../../runtime/in-process-scheduler.ts'
import type { Scheduler, Timer } from '../../runtime/scheduler.ts'
import type { Faults } from './faults.ts'
import type { Random } from './random.ts'
import { awsServiceError } from './store-faults.ts'
import type { World } from './world.ts'

/** Fires a due timer on some live process; rejects when the firing failed. */
export type TimerTarget = (timer: Timer) => Promise<void>

/**
 * EventBridge Scheduler, simulated: one-time schedules by name (the same
 * name and time is one timer, another time a `TimerConflictError`),
 * cancelled per session, each fired at its time on a live process's timer
 * path, a failed firing retried until it succeeds. Faults: a refused
 * `CreateSchedule` (throttled), a late firing (the one-minute precision), a
 * timer fired twice (at least once).
 */
export class SimTimers {
  private readonly timers = new Map<string, { timer: Timer; fired: boolean }>()
  private target: TimerTarget = async () => {}
  fired = 0

  private readonly world: World
  private readonly faults: Faults
  private readonly random: Random

  constructor(world: World, faults: Faults, random: Random) {
    this.world = world
    this.faults = faults
    this.random = random
  }

  fireOn(target: TimerTarget): void {
    this.target = target
  }

  /** Timers set and not yet fired. */
  get pending(): number {
    return [...this.timers.values()].filter((entry) => !entry.fired).length
  }

  /** The scheduler port of one process: each call is a call into the world. */
  port(owner: number): Scheduler {
    return {
      schedule: (timer) =>
        this.world.call(
          owner,
          `scheduler.schedule(${timer.name})`,
          this.random.between(5, 40),
          () => {
            if (this.faults.strikes('scheduler.rejected')) {
              throw awsServiceError('ThrottlingException', 'Rate exceeded')
            }
            this.set(timer)
          },
        ),
      cancel: (sessionId) =>
        this.world.call(owner, `scheduler.cancel(${sessionId})`, this.random.between(5, 40), () =>
          this.cancel(sessionId),
        ),
    }
  }

  private set(timer: Timer): void {
    const id = `${timer.sessionId}\u0000${timer.name}`
    const existing = this.timers.get(id)
    if (existing) {
      if (existing.timer.at !== timer.at) throw new TimerConflictError(timer, existing.timer.at)
      return
    }
    const entry = { timer: structuredClone(timer), fired: false }
    this.timers.set(id, entry)
    const late = this.faults.strikes('scheduler.late') ? this.faults.between(1_000, 60_000) : 0
    this.world.at(timer.at + late + this.random.between(0, 200), undefined, () =>
      this.fire(id, entry),
    )
  }

  private fire(id: string, entry: { timer: Timer; fired: boolean }): void {
    if (this.timers.get(id) !== entry) return
    this.world.log('scheduler', `fire ${entry.timer.name} (${entry.timer.sessionId})`)
    this.fired++
    this.target(entry.timer).then(
      () => {
        // ActionAfterCompletion: DELETE. The same name may be set again, and fires again.
        entry.fired = true
        if (this.timers.get(id) === entry) this.timers.delete(id)
        if (this.faults.strikes('scheduler.fired-twice')) {
          this.world.after(this.random.between(10, 5_000), undefined, () => {
            this.world.log('scheduler', `fault scheduler.fired-twice ${entry.timer.name}`)
            void this.target(entry.timer).catch(() => undefined)
          })
        }
      },
      () =>
        this.world.after(this.random.between(1_000, 10_000), undefined, () => this.fire(id, entry)),
    )
  }

  private cancel(sessionId: string): number {
    let cancelled = 0
    for (const [id, entry] of this.timers) {
      if (entry.timer.sessionId !== sessionId) continue
      this.timers.delete(id)
      if (!entry.fired) cancelled++
    }
    return cancelled
  }
}
