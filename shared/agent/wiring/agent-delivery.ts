import { messageOf } from '../../log/message-of.ts'
import { inProcessDispatcher } from '../../runtime/in-process-dispatcher.ts'
import { inProcessScheduler } from '../../runtime/in-process-scheduler.ts'
import type { Scheduler } from '../../runtime/scheduler.ts'
import type { Dispatcher, RunOutcome, WakeUp } from '../../runtime/wake-up.ts'
import type { FiredTimer } from '../timers/timer-firing.ts'
import type { AgentConfig } from './agent-config.ts'
import type { AgentOptions } from './agent-options.ts'

/** How an agent's wake-ups and timers reach its work. */
export interface AgentDelivery {
  readonly dispatcher: Dispatcher
  readonly scheduler: Scheduler
  /** Resolves when the embedded dispatcher has nothing running or queued (at once otherwise). */
  idle(): Promise<void>
  /** Stops embedded dispatch and timers. */
  close(): void
}

/** The runtime's side of embedded delivery: what a due wake-up or timer calls. */
export interface DeliveryTargets {
  run(wakeUp: WakeUp): Promise<RunOutcome>
  deadLetter(
    wakeUp: WakeUp,
    failure: { error: unknown; attempts: number; occurrence: string },
  ): Promise<void>
  fireTimer(timer: FiredTimer): Promise<void>
}

/**
 * The dispatcher and scheduler the options name (SQS and EventBridge
 * Scheduler on AWS), or embedded ones that run the work in this process:
 * wake-ups retried with backoff and dead-lettered after the retry policy's
 * attempts, timers fired on the agent's clock.
 */
export function agentDelivery(
  options: Pick<AgentOptions, 'dispatcher' | 'scheduler' | 'retry'>,
  config: Pick<AgentConfig, 'now' | 'logger'>,
  targets: DeliveryTargets,
): AgentDelivery {
  const { logger } = config
  const scheduler =
    options.scheduler ??
    inProcessScheduler({
      fire: targets.fireTimer,
      now: config.now,
      logger,
    })
  const closeScheduler = (): void => scheduler.close?.()
  if (options.dispatcher) {
    return {
      dispatcher: options.dispatcher,
      scheduler,
      idle: () => Promise.resolve(),
      close: closeScheduler,
    }
  }
  const embedded = inProcessDispatcher({
    run: (wakeUp) => targets.run(wakeUp),
    now: config.now,
    ...(options.retry ? { retry: options.retry } : {}),
    onRetry: (wakeUp, error, attempt, delayMs) =>
      logger.warn(
        `a2: ${wakeUp.lane} lane of session ${wakeUp.sessionId} failed (attempt ${attempt}), retrying in ${Math.round(delayMs)} ms: ${messageOf(error)}`,
      ),
    // Each give-up is its own occurrence (SQS's is its message ID). A
    // clock reading is not one: two give-ups in one reading collide.
    onDeadLetter: (wakeUp, error, attempts) =>
      targets.deadLetter(wakeUp, { error, attempts, occurrence: crypto.randomUUID() }),
  })
  return {
    dispatcher: embedded,
    scheduler,
    idle: () => embedded.idle(),
    close() {
      embedded.close()
      closeScheduler()
    },
  }
}
