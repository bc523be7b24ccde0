import { A2Error } from '../log/error-brand.ts'
import type { Scheduler, Timer } from './scheduler.ts'

declare module '../log/error-brand.ts' {
  interface A2Codes {
    /** A timer set again under its name at another time (a name fixes its time). */
    TIMER_CONFLICT: true
  }
}

/** Thrown by a scheduler for a timer set again at another time. */
export class TimerConflictError extends A2Error<'TIMER_CONFLICT'> {
  constructor(timer: Timer, existingAt: number) {
    super(
      'TIMER_CONFLICT',
      `Timer "${timer.name}" of session "${timer.sessionId}" is already set for ${new Date(existingAt).toISOString()}; a timer's name fixes its time`,
    )
    this.name = 'TimerConflictError'
  }
}

/** setTimeout stops at 2^31 - 1 ms (about 24.8 days); longer waits are chained. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1

export interface InProcessSchedulerOptions {
  fire: (timer: Timer) => Promise<void>
  now?: () => number
  /** A failed firing is retried after this long (default 1 s), until it succeeds. */
  retryDelayMs?: number
}

/**
 * The embedded scheduler: timers belong to the process, not to the handler
 * that set them, so a tool can schedule and return. Timers are lost when the
 * process exits, as is the embedded memory store they append to.
 */
export function inProcessScheduler(options: InProcessSchedulerOptions): Scheduler & {
  pending(): Timer[]
  close(): void
} {
  const now = options.now ?? Date.now
  const timers = new Map<
    string,
    { timer: Timer; handle: ReturnType<typeof setTimeout> | undefined }
  >()
  let closed = false

  function arm(id: string): void {
    const entry = timers.get(id)
    if (!entry || closed) return
    const wait = Math.max(0, entry.timer.at - now())
    entry.handle = setTimeout(
      () => (wait > MAX_TIMEOUT_MS ? arm(id) : fire(id)),
      Math.min(wait, MAX_TIMEOUT_MS),
    )
  }

  function fire(id: string): void {
    const entry = timers.get(id)
    if (!entry || closed) return
    // Cancelled meanwhile (the entry is gone, or another timer took its name): nothing more.
    const current = () => timers.get(id) === entry
    options.fire(entry.timer).then(
      () => current() && timers.delete(id),
      (error: unknown) => {
        if (!current()) return
        console.warn(`a2: timer "${entry.timer.name}" failed to fire; retrying:`, error)
        entry.handle = setTimeout(() => fire(id), options.retryDelayMs ?? 1_000)
      },
    )
  }

  return {
    async schedule(timer) {
      const id = `${timer.sessionId}\u0000${timer.name}`
      const existing = timers.get(id)
      if (existing) {
        if (existing.timer.at !== timer.at) throw new TimerConflictError(timer, existing.timer.at)
        return
      }
      timers.set(id, { timer: structuredClone(timer), handle: undefined })
      arm(id)
    },
    async cancel(sessionId) {
      let cancelled = 0
      for (const [id, entry] of timers) {
        if (entry.timer.sessionId !== sessionId) continue
        clearTimeout(entry.handle)
        timers.delete(id)
        cancelled++
      }
      return cancelled
    },
    pending: () => [...timers.values()].map((entry) => structuredClone(entry.timer)),
    close() {
      closed = true
      for (const entry of timers.values()) clearTimeout(entry.handle)
      timers.clear()
    },
  }
}
