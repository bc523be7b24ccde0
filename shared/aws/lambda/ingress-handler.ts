import {
  BatchProcessor,
  EventType,
  processPartialResponse,
  SqsFifoPartialProcessorAsync,
} from '@aws-lambda-powertools/batch'
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda'
import { parseIngressMessage } from '../ingress-message.ts'
import { parseTimerMessage } from '../timer-message.ts'
import type { PipelineAgent, PipelineLogger } from './pipeline-agent.ts'

type SqsHandler = (event: SQSEvent, context?: Context) => Promise<SQSBatchResponse>

/**
 * The ingress queue's handler: each `{ sessionId, events }` message is a
 * trusted server append (`agent.session(id).append`), idempotent by event
 * ID. A malformed message fails alone, is logged with the reason, and goes
 * to the DLQ after the queue's maxReceiveCount; other sessions' messages in
 * the batch go on.
 */
export function ingressHandler(agent: PipelineAgent, logger: PipelineLogger): SqsHandler {
  const processor = new SqsFifoPartialProcessorAsync()
  const record = async (message: SQSRecord): Promise<void> => {
    let parsed: ReturnType<typeof parseIngressMessage>
    try {
      parsed = parseIngressMessage(message.body)
      await agent.session(parsed.sessionId).append(...(parsed.events as never[]))
    } catch (error) {
      logger.error('a2: ingress message not appended', {
        messageId: message.messageId,
        receiveCount: message.attributes?.ApproximateReceiveCount,
        code: (error as { code?: string }).code,
        error: error instanceof Error ? error.message : String(error),
      })
      throw error
    }
  }
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
export function timerHandler(agent: PipelineAgent, logger: PipelineLogger): SqsHandler {
  const processor = new BatchProcessor(EventType.SQS)
  const record = async (message: SQSRecord): Promise<void> => {
    try {
      await agent.runtime.fireTimer(parseTimerMessage(message.body))
    } catch (error) {
      logger.error('a2: timer not fired', {
        messageId: message.messageId,
        receiveCount: message.attributes?.ApproximateReceiveCount,
        code: (error as { code?: string }).code,
        error: error instanceof Error ? error.message : String(error),
      })
      throw error
    }
  }
  return (event, context) =>
    processPartialResponse(event, record, processor, {
      ...(context ? { context } : {}),
      throwOnFullBatchFailure: false,
    })
}
