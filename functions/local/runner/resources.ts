import type { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import {
  ConflictException,
  CreateScheduleGroupCommand,
  GetScheduleGroupCommand,
  ResourceNotFoundException,
  type SchedulerClient,
} from '@aws-sdk/client-scheduler'
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs'
import type { AwsEnvironment } from '../../../shared/aws/environment-variables.ts'
import {
  DEAD_LETTER_RETENTION_SECONDS,
  DEFAULT_MAX_RECEIVE_COUNT,
  MESSAGE_RETENTION_SECONDS,
  QUEUE_FUNCTIONS,
  type QueueFunction,
  visibilityTimeoutSeconds,
} from '../../../shared/aws/pipeline-functions.ts'
import { createEventLogTable } from '../../../shared/stores/dynamodb/create-table.ts'

interface LocalQueue {
  url: string
  arn: string
  deadLetterUrl: string
}

export interface LocalQueues {
  /** Every queue the construct creates, by the same role. */
  lanes: Record<'admission' | 'generation' | 'tools' | 'handlers', LocalQueue>
  ingress: LocalQueue
  timers: LocalQueue
  schedulerDeadLetter: { url: string; arn: string }
}

/**
 * FIFO queues in high-throughput mode, as the construct deploys them: without
 * it a FIFO queue allows 300 transactions per second per API action (SQS
 * developer guide, "High throughput for FIFO queues").
 */
const HIGH_THROUGHPUT_FIFO = {
  FifoQueue: 'true',
  FifoThroughputLimit: 'perMessageGroupId',
  DeduplicationScope: 'messageGroup',
} as const

/**
 * Creates what the A2Agent construct deploys, on an AWS-compatible endpoint,
 * with the same settings (`QUEUE_FUNCTIONS`): the table (with its stream),
 * FIFO lane and ingress queues with FIFO DLQs, the standard timer queue and
 * its DLQ, the Scheduler DLQ and schedule group. Each queue's visibility
 * timeout is the deployed one (6x its function's timeout), so the pipeline
 * tests see what AWS does when a function dies. Existing resources are reused.
 */
export async function createLocalResources(
  clients: { dynamodb: DynamoDBClient; sqs: SQSClient; scheduler: SchedulerClient },
  { prefix = 'a2-local', maxReceiveCount = DEFAULT_MAX_RECEIVE_COUNT } = {},
): Promise<{ environment: AwsEnvironment; queues: LocalQueues }> {
  const tableName = `${prefix}-events`
  await createEventLogTable(clients.dynamodb, tableName)

  const queue = async (name: string, attributes: Record<string, string>) => {
    const fifo = attributes.FifoQueue === 'true'
    const { QueueUrl } = await clients.sqs.send(
      new CreateQueueCommand({
        QueueName: `${prefix}-${name}${fifo ? '.fifo' : ''}`,
        Attributes: attributes,
      }),
    )
    const { Attributes } = await clients.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
    )
    return { url: QueueUrl as string, arn: Attributes?.QueueArn as string }
  }
  const forFunction = async (name: QueueFunction): Promise<LocalQueue> => {
    const spec = QUEUE_FUNCTIONS[name]
    const fifo = spec.fifo ? HIGH_THROUGHPUT_FIFO : {}
    const dlq = await queue(`${name}-dlq`, {
      ...fifo,
      MessageRetentionPeriod: String(DEAD_LETTER_RETENTION_SECONDS),
    })
    const main = await queue(name, {
      ...fifo,
      ...(name === 'ingress' ? { ContentBasedDeduplication: 'true' } : {}),
      VisibilityTimeout: String(visibilityTimeoutSeconds(spec.timeoutSeconds)),
      MessageRetentionPeriod: String(MESSAGE_RETENTION_SECONDS),
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount }),
    })
    return { ...main, deadLetterUrl: dlq.url }
  }
  const lanes = {
    admission: await forFunction('admission'),
    generation: await forFunction('generation'),
    tools: await forFunction('tools'),
    handlers: await forFunction('handlers'),
  }
  const ingress = await forFunction('ingress')
  const timers = await forFunction('timers')
  const schedulerDeadLetter = await queue('scheduler-dlq', {
    MessageRetentionPeriod: String(DEAD_LETTER_RETENTION_SECONDS),
  })
  const scheduleGroup = `${prefix}-timers`
  await ensureScheduleGroup(clients.scheduler, scheduleGroup)
  return {
    environment: {
      tableName,
      queueUrls: {
        admission: lanes.admission.url,
        generation: lanes.generation.url,
        tools: lanes.tools.url,
        handlers: lanes.handlers.url,
      },
      ingressQueueUrl: ingress.url,
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

/**
 * Creates the schedule group unless it is there. Looked up first because
 * moto answers a second CreateScheduleGroup by replacing the group, and
 * every schedule in it with it, where Scheduler answers ConflictException:
 * a runner started again on a moto of your own would otherwise drop every
 * pending timer due in more than 15 minutes (the ones SQS cannot delay).
 */
async function ensureScheduleGroup(scheduler: SchedulerClient, name: string): Promise<void> {
  try {
    await scheduler.send(new GetScheduleGroupCommand({ Name: name }))
    return
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error
  }
  try {
    await scheduler.send(new CreateScheduleGroupCommand({ Name: name }))
  } catch (error) {
    // Another runner made it in between.
    if (!(error instanceof ConflictException)) throw error
  }
}
