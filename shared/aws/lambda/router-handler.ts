import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda'
import { type SqsDispatcherOptions, sendWakeUps } from '../sqs-dispatcher.ts'
import { routeStreamRecords } from '../stream-router.ts'
import type { PipelineAgent, PipelineLogger } from './pipeline-agent.ts'

/** The table stream's handler: new events become wake-ups on the lane queues. */
export function routerHandler(
  agent: PipelineAgent,
  queues: Pick<SqsDispatcherOptions, 'client' | 'queueUrls'>,
  logger: PipelineLogger,
): (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse> {
  return (event) =>
    routeStreamRecords(event.Records ?? [], {
      wakeUpsFor: agent.runtime.wakeUpsFor,
      send: (wakeUps) => sendWakeUps(queues, wakeUps),
      logger,
    })
}
