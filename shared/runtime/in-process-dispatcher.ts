import { backoff, DEFAULT_RETRY_POLICY, type RetryPolicy } from '../timing/backoff.ts'
import { type Dispatcher, type RunOutcome, type WakeUp, wakeUpGroup } from './wake-up.ts'

export interface InProcessDispatcherOptions {
  /** Runs a wake-up's work: done, or held elsewhere until `retryAt`; a failure throws. */
  run: (wakeUp: WakeUp, attempt: number) => Promise<RunOutcome>
  /** Called once a group failed `maxAttempts` times in a row; it is not retried again until woken. */
  onDeadLetter?: (wakeUp: WakeUp, error: unknown, attempts: number) => Promise<void> | void
  /** How a group's failed runs are retried (default `DEFAULT_RETRY_POLICY`): `maxAttempts` runs in a row. */
  retry?: Partial<RetryPolicy>
  /** Where failures that are retried are reported (default: console.warn). */
  onRetry?: (wakeUp: WakeUp, error: unknown, attempt: number, delayMs: number) => void
  /** The clock a held claim's `retryAt` is on (the store's; default `Date.now`). */
  now?: () => number
}

interface Group {
  wakeUp: WakeUp
  running: boolean
  /** Woken while running: run again after, since the run may have read too early. */
  dirty: boolean
  failures: number
  retryTimer: ReturnType<typeof setTimeout> | undefined
}

/**
 * The embedded dispatcher: one Node process plays the part of SQS FIFO. Each
 * wake-up group runs one at a time; a wake-up that arrives while its group
 * runs triggers one more run afterwards; a failed run is retried with
 * exponential backoff and jitter, and dead-lettered after `maxAttempts`.
 */
export function inProcessDispatcher(options: InProcessDispatcherOptions): Dispatcher & {
  /** Resolves when no group is running, queued or waiting to retry. */
  idle(): Promise<void>
  close(): void
} {
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.retry }
  const now = options.now ?? Date.now
  const groups = new Map<string, Group>()
  let idleWaiters: (() => void)[] = []
  let closed = false

  const busy = (): boolean =>
    [...groups.values()].some(
      (group) => group.running || group.dirty || group.retryTimer !== undefined,
    )

  function settle(): void {
    if (busy()) return
    const waiters = idleWaiters
    idleWaiters = []
    for (const resolve of waiters) resolve()
  }

  function start(id: string, group: Group): void {
    if (closed || group.running) return
    group.running = true
    group.dirty = false
    const attempt = group.failures + 1
    void options.run(group.wakeUp, attempt).then(
      (outcome) => {
        // Held is no try: failures around it still count in a row, as SQS's
        // receive count goes on through a held message's redeliveries.
        if (outcome.kind !== 'held') {
          group.failures = 0
          return finish(id, group)
        }
        // Not a failure: the work is someone else's until then (a claim).
        group.running = false
        group.retryTimer = setTimeout(
          () => {
            group.retryTimer = undefined
            start(id, group)
          },
          Math.max(0, outcome.retryAt - now()) + 5,
        )
      },
      async (error: unknown) => {
        group.failures++
        if (group.failures >= policy.maxAttempts) {
          const attempts = group.failures
          group.failures = 0
          await Promise.resolve(options.onDeadLetter?.(group.wakeUp, error, attempts)).catch(
            (deadLetterError) => console.error('a2: dead-lettering failed', deadLetterError),
          )
          finish(id, group)
          return
        }
        const delay = backoff(group.failures - 1, { ...policy, jitter: 'equal' })
        ;(options.onRetry ?? defaultOnRetry)(group.wakeUp, error, group.failures, delay)
        group.running = false
        group.retryTimer = setTimeout(() => {
          group.retryTimer = undefined
          start(id, group)
        }, delay)
      },
    )
  }

  function finish(id: string, group: Group): void {
    group.running = false
    if (group.dirty) start(id, group)
    else if (group.retryTimer === undefined) groups.delete(id)
    settle()
  }

  return {
    async wake(wakeUps) {
      for (const wakeUp of wakeUps) {
        const id = wakeUpGroup(wakeUp)
        const group = groups.get(id) ?? {
          wakeUp,
          running: false,
          dirty: false,
          failures: 0,
          retryTimer: undefined,
        }
        groups.set(id, group)
        if (group.running) group.dirty = true
        else if (group.retryTimer === undefined) start(id, group)
      }
    },
    idle: () => (busy() ? new Promise((resolve) => idleWaiters.push(resolve)) : Promise.resolve()),
    close() {
      closed = true
      for (const group of groups.values()) clearTimeout(group.retryTimer)
      groups.clear()
      settle()
    },
  }
}

function defaultOnRetry(wakeUp: WakeUp, error: unknown, attempt: number, delayMs: number): void {
  console.warn(
    `a2: ${wakeUp.lane} work for session ${wakeUp.sessionId} failed (attempt ${attempt}); retrying in ${Math.round(delayMs)} ms:`,
    error instanceof Error ? error.message : error,
  )
}
