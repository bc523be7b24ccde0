import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb'
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams'
import { SchedulerClient } from '@aws-sdk/client-scheduler'
import { SQSClient } from '@aws-sdk/client-sqs'

/** The four clients a pipeline uses (its store, the stream, the queues, the timers), on one endpoint. */
export function pipelineClientsOn(config: DynamoDBClientConfig) {
  return {
    dynamodb: new DynamoDBClient(config),
    streams: new DynamoDBStreamsClient(config),
    sqs: new SQSClient(config),
    scheduler: new SchedulerClient(config),
  }
}
