import type { Timers } from '../../timing/timers.ts'
import type { AgendaEntry } from './agenda.ts'
import type { World } from './world.ts'

/** A process's clock: the world's time, off by the process's skew (and its jumps), and timers on the agenda. */
export interface ProcessClock {
  now: () => number
  timers: Timers
  /** Steps the clock by `ms` (an NTP correction, a VM resumed): it reads that much ahead, or behind. */
  jump(ms: number): void
}

/**
 * The clock seam of `agent()` (`now`, `timers`) on simulated time: a timer is
 * an agenda entry of the process, so it fires in simulated time, in a
 * reproducible order, and never after the process died. Each firing is a
 * trace line of `who` (the process's, by default): a run that forks at a
 * timer (one cleared in one run and not in another) shows where.
 */
export function processClock(
  world: World,
  owner: number | undefined,
  skewMs = 0,
  who = owner === undefined ? 'world' : `p${owner}`,
): ProcessClock {
  const handles = new Map<object, AgendaEntry>()
  const cancel = (handle: unknown): void => {
    const entry = handles.get(handle as object)
    if (entry) entry.cancelled = true
    handles.delete(handle as object)
  }
  const timers: Timers = {
    setTimeout(callback, ms) {
      const handle = {}
      handles.set(
        handle,
        world.after(ms, owner, () => {
          handles.delete(handle)
          world.log(who, `timer (${ms} ms)`)
          callback()
        }),
      )
      return handle
    },
    clearTimeout: cancel,
    setInterval(callback, ms) {
      const handle = {}
      const arm = (): void => {
        handles.set(
          handle,
          world.after(Math.max(1, ms), owner, () => {
            arm()
            world.log(who, `interval (${ms} ms)`)
            callback()
          }),
        )
      }
      arm()
      return handle
    },
    clearInterval: cancel,
  }
  let offset = skewMs
  return {
    now: () => world.time + offset,
    timers,
    jump(ms) {
      offset += ms
    },
  }
}
