import {
  BatchProcessor,
  EventType,
  processPartialResponse,
  SqsFifoPartialProcessorAsync,
} from '@aws-lambda-powertools/batch'
import type { SQSRecord } from 'aws-lambda'
import type { AgentMetrics } from '../../ai/server/agent-metrics.ts'
import { messageOf } from '../../log/message-of.ts'
import { parseIngressMessage } from '../ingress-message.ts'
import { parseTimerMessage } from '../timer-message.ts'
import type { PipelineAgent, PipelineLogger } from './pipeline-agent.ts'
import type { SqsHandler } from './visibility-lease.ts'

/**
 * The ingress queue's handler: each `{ sessionId, events }` message is a
 * trusted server append (`agent.session(id).append`), idempotent by event
 * ID. A malformed message fails alone, is logged with the reason, and goes
 * to the DLQ after the queue's maxReceiveCount; other sessions' messages in
 * the batch go on. Its appends count into `metrics` (the invocation's sink),
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

/** A record handler whose failures are logged with the message's ID and receive count, then rethrown. */
function loggingFailures(
  logger: PipelineLogger,
  what: string,
  handle: (message: SQSRecord) => Promise<void>,
): (message: SQSRecord) => Promise<void> {
  return async (message) => {
    try {
      await handle(message)
    } catch (error) {
      logger.error(what, {
        messageId: message.messageId,
        receiveCount: message.attributes?.ApproximateReceiveCount,
        code: (error as { code?: string }).code,
        error: messageOf(error),
      })
      throw error
    }
  }
}
