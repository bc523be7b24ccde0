import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch'
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda'
import { PipelineError } from '../errors.ts'
import { parseWakeUpMessage, type QueueLane, queueOfLane } from '../wake-up-message.ts'
import type { PipelineAgent, PipelineLogger } from './pipeline-agent.ts'

/**
 * The handler of one lane's FIFO queue: each message is a wake-up, and the
 * lane reads the log from its cursor and commits what it decides. Records
 * run in order; after a failure the rest of that message group's records in
 * the batch fail too (and come back in order), other groups go on.
 */
export function laneHandler(
  agent: PipelineAgent,
  lane: QueueLane,
  logger: PipelineLogger,
): (event: SQSEvent, context?: Context) => Promise<SQSBatchResponse> {
  const processor = new SqsFifoPartialProcessorAsync()
  const record = async (message: SQSRecord): Promise<void> => {
    let wakeUp: ReturnType<typeof parseWakeUpMessage>
    try {
      wakeUp = parseWakeUpMessage(message.body)
      if (queueOfLane(wakeUp.lane) !== lane) {
        throw new PipelineError('WRONG_LANE', `A ${wakeUp.lane} wake-up reached the ${lane} queue`)
      }
    } catch (error) {
      logger.error('a2: malformed wake-up', { messageId: message.messageId, error: String(error) })
      throw error
    }
    try {
      await agent.runtime.run(wakeUp)
    } catch (error) {
      logger.warn(`a2: ${lane} lane failed; SQS will redeliver`, {
        sessionId: wakeUp.sessionId,
        key: wakeUp.key,
        receiveCount: message.attributes?.ApproximateReceiveCount,
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
