import type { Random } from './random.ts'

/**
 * Every fault a simulation injects, by the name of what goes wrong in the
 * real world (see store-faults.ts, sim-queues.ts, sim-timers.ts,
 * sim-model.ts, sim-process.ts for where each lands).
 */
export const FAULT_KINDS = [
  /** DynamoDB throttling surfaced after the SDK's retries: ProvisionedThroughputExceededException, ThrottlingException, RequestLimitExceeded. */
  'store.throttled',
  /** TransactWriteItems cancelled with TransactionConflict (or, on DynamoDB, a progress PutItem refused with TransactionConflictException): the adapter's own retries (slower), rarely AppendContendedError. */
  'store.transaction-conflict',
  /** The write committed, then the request timed out (TimeoutError): the caller cannot tell. */
  'store.timeout-after-commit',
  /** The write committed, the response was lost, and the SDK sent it again: the caller hears the second answer. */
  'store.retried-after-commit',
  /** SendMessageBatch failed (SEND_FAILED): the fast path's wake-ups are lost, the stream router's copy is not. */
  'sqs.send-failed',
  /** A message processed and deleted comes back once more (at least once). */
  'sqs.redelivered',
  /** A message becomes visible late (seconds). */
  'sqs.delayed',
  /** EventBridge Scheduler refused to create a schedule (throttled). */
  'scheduler.rejected',
  /** A timer fires late (Scheduler's one-minute precision). */
  'scheduler.late',
  /** A timer fires twice (at least once). */
  'scheduler.fired-twice',
  /** The model call fails before it streams (a 500, a 429). */
  'model.error',
  /** The stream errors after some parts. */
  'model.error-mid-stream',
  /** A part that cannot be used: a tool call to no tool, tool input that is not JSON. */
  'model.malformed',
  /** A part too large to store in one event. */
  'model.oversized',
  /** The stream stalls for a while, then goes on or times out. */
  'model.stall',
  /** A process dies at a call (before it took effect or after). */
  'process.killed',
  /** A process's clock is off by up to a second. */
  'clock.skew',
  /**
   * A process's clock steps ahead or behind by 1 to 10 s while it runs: the
   * claims it judges (its store adapter's conditions) expire early or late
   * for it, its events' timestamps and timers move with it.
   */
  'clock.jump',
  /**
   * A process stalls as a write goes out (a long GC pause, a starved or
   * migrated VM) for longer than its claims live: another process takes its
   * work over while it is frozen, and when it thaws it writes on with what
   * it knew. Half the freezes thaw just as another process's work reads the
   * same session (world.ts, `freeze`): the window a takeover must not decide in.
   */
  'process.frozen',
] as const

export type FaultKind = (typeof FAULT_KINDS)[number]

/** Each enabled fault's probability per chance it has (a call, a message, a part). */
export type FaultPlan = Partial<Record<FaultKind, number>>

const RATES: Record<FaultKind, readonly number[]> = {
  'store.throttled': [0.005, 0.02],
  'store.transaction-conflict': [0.01, 0.05],
  'store.timeout-after-commit': [0.003, 0.01],
  'store.retried-after-commit': [0.005, 0.02],
  'sqs.send-failed': [0.01, 0.05],
  'sqs.redelivered': [0.02, 0.1],
  'sqs.delayed': [0.02, 0.1],
  'scheduler.rejected': [0.05, 0.2],
  'scheduler.late': [0.2, 0.5],
  'scheduler.fired-twice': [0.1, 0.3],
  'model.error': [0.03, 0.1],
  'model.error-mid-stream': [0.03, 0.1],
  'model.malformed': [0.03, 0.1],
  'model.oversized': [0.01, 0.05],
  'model.stall': [0.03, 0.1],
  'process.killed': [0.002, 0.01],
  'clock.skew': [1],
  'clock.jump': [0.2, 0.5],
  'process.frozen': [0.005, 0.02],
}

/** A seed's faults: each kind on with probability `density`, at one of its rates. */
export function planFaults(
  random: Random,
  only: readonly FaultKind[] = FAULT_KINDS,
  density = 0.5,
): FaultPlan {
  const plan: FaultPlan = {}
  for (const kind of FAULT_KINDS) {
    const on = random.chance(density)
    const rate = random.pick(RATES[kind])
    if (on && only.includes(kind)) plan[kind] = rate
  }
  return plan
}

/** A run's faults: whether one strikes now, and how many of each struck. */
export class Faults {
  readonly injected: Partial<Record<FaultKind, number>> = {}
  /** No fault strikes while calm (the checks at the end of a run). */
  calm = false

  readonly plan: FaultPlan
  private readonly random: Random

  constructor(plan: FaultPlan, random: Random) {
    this.plan = plan
    this.random = random
  }

  /** Whether `kind` strikes at this chance, `weight` times as likely as its rate (and counts it when it does). */
  strikes(kind: FaultKind, weight = 1): boolean {
    const rate = this.plan[kind]
    if (this.calm || rate === undefined || !this.random.chance(Math.min(1, rate * weight)))
      return false
    this.injected[kind] = (this.injected[kind] ?? 0) + 1
    return true
  }

  enabled(kind: FaultKind): boolean {
    return this.plan[kind] !== undefined
  }

  /** A choice of the fault being injected (which exception, how long a stall). */
  pick<T>(items: readonly T[]): T {
    return this.random.pick(items)
  }

  between(min: number, max: number): number {
    return this.random.between(min, max)
  }
}
