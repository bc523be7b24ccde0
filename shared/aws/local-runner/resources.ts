import type { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import {
  ConflictException,
  CreateScheduleGroupCommand,
  type SchedulerClient,
} from '@aws-sdk/client-scheduler'
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs'
import { createEventLogTable } from '../../stores/dynamodb/create-table.ts'
import { type AwsEnvironment, DEFAULT_MAX_RECEIVE_COUNT } from '../agent-environment.ts'

export interface LocalQueues {
  /** Every queue the construct creates, by the same role. */
  lanes: Record<
    'admission' | 'generation' | 'tools' | 'handlers',
    { url: string; arn: string; deadLetterUrl: string }
  >
  ingress: { url: string; arn: string; deadLetterUrl: string }
  timers: { url: string; arn: string; deadLetterUrl: string }
  schedulerDeadLetter: { url: string; arn: string }
}

/**
 * Creates what the A2Agent construct deploys, on an AWS-compatible endpoint:
 * the table (with its stream), FIFO lane and ingress queues with FIFO DLQs,
 * the standard timer queue and its DLQ, the Scheduler DLQ and schedule group.
 * Existing resources are reused.
 */
export async function createLocalResources(
  clients: { dynamodb: DynamoDBClient; sqs: SQSClient; scheduler: SchedulerClient },
  {
    prefix = 'a2-local',
    maxReceiveCount = DEFAULT_MAX_RECEIVE_COUNT,
    visibilityTimeoutSeconds = 30,
  } = {},
): Promise<{ environment: AwsEnvironment; queues: LocalQueues }> {
  const tableName = `${prefix}-events`
  await createEventLogTable(clients.dynamodb, tableName)

  const queue = async (name: string, fifo: boolean, deadLetterArn?: string) => {
    const { QueueUrl } = await clients.sqs.send(
      new CreateQueueCommand({
        QueueName: `${prefix}-${name}${fifo ? '.fifo' : ''}`,
        Attributes: {
          ...(fifo ? { FifoQueue: 'true' } : {}),
          ...(name === 'ingress' ? { ContentBasedDeduplication: 'true' } : {}),
          VisibilityTimeout: String(visibilityTimeoutSeconds),
          ...(deadLetterArn
            ? {
                RedrivePolicy: JSON.stringify({
                  deadLetterTargetArn: deadLetterArn,
                  maxReceiveCount,
                }),
              }
            : {}),
        },
      }),
    )
    const { Attributes } = await clients.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
    )
    return { url: QueueUrl as string, arn: Attributes?.QueueArn as string }
  }
  const withDeadLetter = async (name: string, fifo: boolean) => {
    const dlq = await queue(`${name}-dlq`, fifo)
    const main = await queue(name, fifo, dlq.arn)
    return { ...main, deadLetterUrl: dlq.url }
  }
  const lanes = {
    admission: await withDeadLetter('admission', true),
    generation: await withDeadLetter('generation', true),
    tools: await withDeadLetter('tools', true),
    handlers: await withDeadLetter('handlers', true),
  }
  const ingress = await withDeadLetter('ingress', true)
  const timers = await withDeadLetter('timers', false)
  const schedulerDeadLetter = await queue('scheduler-dlq', false)
  const scheduleGroup = `${prefix}-timers`
  try {
    await clients.scheduler.send(new CreateScheduleGroupCommand({ Name: scheduleGroup }))
  } catch (error) {
    if (!(error instanceof ConflictException)) throw error
  }
  return {
    environment: {
      tableName,
      queueUrls: {
        admission: lanes.admission.url,
        generation: lanes.generation.url,
        tools: lanes.tools.url,
        handlers: lanes.handlers.url,
      },
      timers: {
        queueUrl: timers.url,
        queueArn: timers.arn,
        scheduleGroup,
        schedulerRoleArn: 'arn:aws:iam::123456789012:role/a2-local-scheduler',
        deadLetterQueueArn: schedulerDeadLetter.arn,
      },
      agentExport: 'default',
      maxReceiveCount,
    },
    queues: { lanes, ingress, timers, schedulerDeadLetter },
  }
}
