import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch'
import type { SQSRecord } from 'aws-lambda'
import type { RunOptions } from '../../agent/wiring/agent.ts'
import type { AgentMetrics } from '../../agent/wiring/agent-metrics.ts'
import { messageOf } from '../../log/message-of.ts'
import type { WakeUp } from '../../runtime/wake-up.ts'
import { sleep } from '../../timing/sleep.ts'
import { PipelineError } from '../errors.ts'
import { parseWakeUpMessage, type QueueLane, queueOfLane } from '../wake-up-message.ts'
import type { PipelineAgent, PipelineLogger } from './pipeline-agent.ts'
import type { SqsHandler } from './visibility-lease.ts'

/** Time left in the invocation that waiting for a claim may not use. */
const CLAIM_WAIT_MARGIN_MS = 5_000
/** Without a Lambda context (tests, the runner), wait for a claim this long at most. */
const DEFAULT_CLAIM_WAIT_MS = 60_000

export interface LaneHandlerOptions {
  logger: PipelineLogger
  /**
   * The queue's redrive `maxReceiveCount`: a message that fails on its last
   * receive goes to the dead-letter queue, so the lane records the failure on
   * the session first (`ai.handler.dead-lettered`).
   */
  maxReceiveCount: number
  /** Where the runs' figures go (the invocation's CloudWatch sink), and the wake-up latency. */
  metrics?: AgentMetrics
  /** The AI SDK's telemetry on for the runs' model calls. */
  modelTelemetry?: boolean
}

/**
 * The handler of one lane's FIFO queue: each message is a wake-up, and the
 * lane reads the log from its cursor and commits what it decides. Records
 * run in order; after a failure the rest of that message group's records in
 * the batch fail too (and come back in order), other groups go on.
 *
 * Work held by an earlier attempt (a run's `held` outcome) is waited for in
 * the invocation, until the claim expires: a message redelivered sooner than its
 * crashed attempt's claim expired then takes the work over in one receive,
 * instead of spending receives until it lands in the dead-letter queue.
 */
export function laneHandler(
  agent: PipelineAgent,
  lane: QueueLane,
  options: LaneHandlerOptions,
): SqsHandler {
  const { logger, metrics } = options
  const runOptions: RunOptions = {
    ...(metrics ? { metrics } : {}),
    ...(options.modelTelemetry === undefined ? {} : { telemetry: options.modelTelemetry }),
  }
  const processor = new SqsFifoPartialProcessorAsync()
  return (event, context) => {
    const deadline =
      Date.now() +
      (context ? context.getRemainingTimeInMillis() - CLAIM_WAIT_MARGIN_MS : DEFAULT_CLAIM_WAIT_MS)
    const record = async (message: SQSRecord): Promise<void> => {
      let wakeUp: WakeUp
      try {
        wakeUp = parseWakeUpMessage(message.body)
        if (queueOfLane(wakeUp.lane) !== lane) {
          throw new PipelineError(
            'WRONG_LANE',
            `A ${wakeUp.lane} wake-up reached the ${lane} queue`,
          )
        }
      } catch (error) {
        logger.error('a2: malformed wake-up', {
          messageId: message.messageId,
          error: String(error),
        })
        throw error
      }
      const receiveCount = Number(message.attributes?.ApproximateReceiveCount ?? 1)
      // From the wake-up being sent (right after its append, on the fast
      // path) to its lane starting on it; a redelivery's figure would be the
      // retry's backoff, so only first receives count.
      const sentAt = Number(message.attributes?.SentTimestamp)
      if (metrics && receiveCount === 1 && sentAt > 0) {
        metrics.record('WakeUpLatency', Math.max(0, Date.now() - sentAt))
      }
      try {
        await runWaitingForClaims(agent, wakeUp, deadline, runOptions)
      } catch (error) {
        const last = receiveCount >= options.maxReceiveCount
        logger.warn(
          `a2: ${lane} lane failed; ${last ? 'its message goes to the dead-letter queue' : 'SQS will redeliver'}`,
          {
            sessionId: wakeUp.sessionId,
            key: wakeUp.key,
            receiveCount,
            error: messageOf(error),
          },
        )
        if (last) {
          await agent.runtime
            .deadLetter(
              wakeUp,
              { error, attempts: receiveCount, occurrence: message.messageId },
              runOptions,
            )
            .catch((deadLetterError: unknown) =>
              logger.error('a2: could not record the dead letter on the session', {
                sessionId: wakeUp.sessionId,
                error: String(deadLetterError),
              }),
            )
        }
        throw error
      }
    }
    return processPartialResponse(event, record, processor, {
      ...(context ? { context } : {}),
      skipGroupOnError: true,
      throwOnFullBatchFailure: false,
    })
  }
}

/**
 * Runs the wake-up, waiting in the invocation while a live attempt holds the
 * work, as long as the invocation has time. Work held past the deadline
 * fails the record, so SQS brings it back when its visibility ends.
 */
async function runWaitingForClaims(
  agent: PipelineAgent,
  wakeUp: WakeUp,
  deadline: number,
  runOptions: RunOptions,
): Promise<void> {
  for (;;) {
    const outcome = await agent.runtime.run(wakeUp, runOptions)
    // An agent built with an older a2-aws returns nothing: done.
    if (outcome?.kind !== 'held') return
    if (outcome.retryAt >= deadline) {
      throw new PipelineError(
        'WORK_HELD',
        `The ${wakeUp.lane} work of session ${wakeUp.sessionId} is held by a live attempt until ${new Date(outcome.retryAt).toISOString()}, past this invocation's time: SQS delivers it again`,
      )
    }
    await sleep(Math.max(0, outcome.retryAt - Date.now()) + 5)
  }
}
