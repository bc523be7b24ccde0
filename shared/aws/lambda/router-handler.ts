import type { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda'
import { eraseSession } from '../../stores/dynamodb/erase-session.ts'
import { type SqsDispatcherOptions, sendWakeUps } from '../sqs-dispatcher.ts'
import { routeStreamRecords } from '../stream-router.ts'
import type { PipelineAgent, PipelineLogger } from './pipeline-agent.ts'

/**
 * The table stream's handler: new events become wake-ups on the lane queues,
 * and a head that retention's TTL deleted takes the rest of its session along.
 */
export function routerHandler(
  agent: PipelineAgent,
  queues: Pick<SqsDispatcherOptions, 'client' | 'queueUrls'>,
  table: { client: DynamoDBClient; tableName: string },
  logger: PipelineLogger,
): (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse> {
  return (event) =>
    routeStreamRecords(event.Records ?? [], {
      wakeUpsFor: agent.runtime.wakeUpsFor,
      send: (wakeUps) => sendWakeUps(queues, wakeUps),
      async eraseExpired(sessionId) {
        const receipt = await eraseSession(table.client, table.tableName, sessionId, {
          headless: true,
        })
        logger.info(`a2 router: retention erased what session ${sessionId} left`, receipt)
      },
      logger,
    })
}
