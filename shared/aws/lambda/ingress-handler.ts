import {
  BatchProcessor,
  EventType,
  processPartialResponse,
  SqsFifoPartialProcessorAsync,
} from '@aws-lambda-powertools/batch'
import type { SQSRecord } from 'aws-lambda'
import type { AgentMetrics } from '../../agent/wiring/agent-metrics.ts'
import { isContentRefusal } from '../../log/content-refusal.ts'
import { hasA2Code } from '../../log/error-brand.ts'
import { messageOf } from '../../log/message-of.ts'
import { parseIngressMessage } from '../ingress-message.ts'
import { parseTimerMessage } from '../timer-message.ts'
import type { PipelineAgent, PipelineLogger } from './pipeline-agent.ts'
import { failsForGood, type SqsHandler } from './visibility-lease.ts'

/**
 * The ingress queue's handler: each `{ sessionId, events }` message is a
 * trusted server append (`agent.session(id).append`), idempotent by event
 * ID. A malformed message (or one whose events the log refuses) fails
 * alone, is logged with the reason, and comes back at once until the
 * queue's maxReceiveCount moves it to the DLQ, so its session's later
 * messages wait moments, not the backoff; other sessions' messages in the
 * batch go on. Its appends count into `metrics` (the invocation's sink),
 * as the lanes' do.
 */
export function ingressHandler(
  agent: PipelineAgent,
  logger: PipelineLogger,
  metrics?: AgentMetrics,
): SqsHandler {
  const processor = new SqsFifoPartialProcessorAsync()
  const run = metrics ? { metrics } : undefined
  const record = loggingFailures(logger, 'a2: ingress message not appended', async (message) => {
    const parsed = parseIngressMessage(message.body)
    await agent.runtime.append(parsed.sessionId, parsed.events, run)
  })
  return (event, context) =>
    processPartialResponse(event, record, processor, {
      ...(context ? { context } : {}),
      skipGroupOnError: true,
      throwOnFullBatchFailure: false,
    })
}

/**
 * The timer queue's handler (a standard queue: SQS delays and Scheduler
 * firings arrive here), fired as the embedded scheduler fires them: the
 * events are A2's own (derived IDs), so a twice-delivered timer is one append.
 */
export function timerHandler(
  agent: PipelineAgent,
  logger: PipelineLogger,
  metrics?: AgentMetrics,
): SqsHandler {
  const processor = new BatchProcessor(EventType.SQS)
  const run = metrics ? { metrics } : undefined
  const record = loggingFailures(logger, 'a2: timer not fired', (message) =>
    agent.runtime.fireTimer(parseTimerMessage(message.body), run),
  )
  return (event, context) =>
    processPartialResponse(event, record, processor, {
      ...(context ? { context } : {}),
      throwOnFullBatchFailure: false,
    })
}

/**
 * Refusals a redelivery cannot change: the message itself is malformed, or
 * the log refuses its events for what they are (or its session ID).
 */
function failsForGoodOn(error: unknown): boolean {
  return (
    hasA2Code(error, 'MALFORMED_INGRESS_MESSAGE') ||
    hasA2Code(error, 'MALFORMED_TIMER_MESSAGE') ||
    hasA2Code(error, 'INVALID_SESSION_ID') ||
    isContentRefusal(error)
  )
}

/**
 * A record handler whose failures are logged with the message's ID and
 * receive count, then rethrown; one no redelivery can mend is marked so
 * (`failsForGood`), to reach the dead-letter queue without the backoff.
 */
function loggingFailures(
  logger: PipelineLogger,
  what: string,
  handle: (message: SQSRecord) => Promise<void>,
): (message: SQSRecord) => Promise<void> {
  return async (message) => {
    try {
      await handle(message)
    } catch (error) {
      const forGood = failsForGoodOn(error)
      if (forGood) failsForGood(message)
      logger.error(what, {
        messageId: message.messageId,
        receiveCount: message.attributes?.ApproximateReceiveCount,
        code: (error as { code?: string }).code,
        error: messageOf(error),
        ...(forGood ? { retried: 'at once, for the dead-letter queue' } : {}),
      })
      throw error
    }
  }
}
