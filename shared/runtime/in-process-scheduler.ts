import { A2Error } from '../log/error-brand.ts'
import type { ErrorStatuses } from '../log/error-statuses.ts'
import { messageOf } from '../log/message-of.ts'
import { backoff, type RetryPolicy } from '../timing/backoff.ts'
import type { Scheduler, Timer } from './scheduler.ts'

declare module '../log/error-brand.ts' {
  interface A2Codes {
    /** A timer set again under its name at another time (a name fixes its time). */
    TIMER_CONFLICT: undefined
  }
}

/** The HTTP answer to a scheduler's code. */
export const SCHEDULER_ERROR_STATUSES: ErrorStatuses<'TIMER_CONFLICT'> = { TIMER_CONFLICT: 409 }

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

/**
 * How a firing that fails is tried again: as a due timer on AWS is (the
 * timer queue's redrive after five receives, the lease's waits doubling from
 * 2 s), so a store outage of half a minute loses no timer, and one that
 * keeps failing is given up, not retried every second forever.
 * @internal Exported for its test (knip --production).
 */
export const DEFAULT_TIMER_RETRY: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 2_000,
  maxDelayMs: 60_000,
}

export interface InProcessSchedulerOptions {
  fire: (timer: Timer) => Promise<void>
  now?: () => number
  /** How a failed firing is retried (default `DEFAULT_TIMER_RETRY`), with equal jitter. */
  retry?: Partial<RetryPolicy>
  /** Where a failed firing's retry (warn) and a given-up timer (error) are said (default: the console). */
  logger?: Pick<Console, 'warn' | 'error'>
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
  const policy = { ...DEFAULT_TIMER_RETRY, ...options.retry }
  const logger = options.logger ?? console
  const onRetry = (timer: Timer, error: unknown, attempt: number, delayMs: number) =>
    logger.warn(
      `a2: timer "${timer.name}" of session ${timer.sessionId} failed to fire (attempt ${attempt}), retrying in ${Math.round(delayMs)} ms: ${messageOf(error)}`,
    )
  const onGiveUp = (timer: Timer, error: unknown, attempts: number) =>
    logger.error(
      `a2: timer "${timer.name}" of session ${timer.sessionId} gave up after ${attempts} attempts; its events were not appended: ${messageOf(error)}`,
    )
  const timers = new Map<
    string,
    { timer: Timer; handle: ReturnType<typeof setTimeout> | undefined; failures: number }
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
        entry.failures++
        if (entry.failures >= policy.maxAttempts) {
          timers.delete(id)
          onGiveUp(entry.timer, error, entry.failures)
          return
        }
        const delay = backoff(entry.failures - 1, { ...policy, jitter: 'equal' })
        onRetry(entry.timer, error, entry.failures, delay)
        entry.handle = setTimeout(() => fire(id), delay)
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
      timers.set(id, { timer: structuredClone(timer), handle: undefined, failures: 0 })
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
