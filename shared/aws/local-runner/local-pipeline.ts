import type { AttributeValue } from '@aws-sdk/client-dynamodb'
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb'
import {
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams'
import {
  DeleteScheduleCommand,
  GetScheduleCommand,
  ListSchedulesCommand,
  type SchedulerClient,
} from '@aws-sdk/client-scheduler'
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs'
import type { DynamoDBRecord, SQSEvent, SQSRecord } from 'aws-lambda'
import type { AwsEnvironment } from '../agent-environment.ts'
import type { PipelineLogger } from '../lambda/pipeline-agent.ts'
import { type PipelineHandlers, pipelineHandlers } from '../lambda/pipeline-handlers.ts'
import type { LocalQueues } from './resources.ts'
import { serveStreamingHandler, streamingShim } from './streaming-shim.ts'

export interface LocalPipelineOptions {
  /** The agent module (its `default` export, or `environment.agentExport`). */
  agentModule: Record<string, unknown>
  environment: AwsEnvironment
  queues: LocalQueues
  clients: {
    dynamodb: DynamoDBClient
    streams: DynamoDBStreamsClient
    sqs: SQSClient
    scheduler: SchedulerClient
  }
  /** Pause between empty polls (default 50 ms). */
  pollMs?: number
  /** A failed message comes back after this long (default 1 s; Lambda: the visibility timeout). */
  retryDelaySeconds?: number
  port?: number
  logger?: PipelineLogger
}

export interface LocalPipeline {
  /** The agent's endpoint, as API Gateway would serve it. */
  url: string
  handlers: PipelineHandlers
  /** Counts of what the runner did, for tests and benchmarks. */
  stats: {
    routerInvocations: number
    laneInvocations: Record<string, number>
    schedulesFired: number
  }
  stop(): Promise<void>
}

/**
 * Plays the part of Lambda's event source mappings, Scheduler and API
 * Gateway on an AWS-compatible endpoint: polls the table's stream (a new
 * iterator after the last sequence number on every poll) into the router,
 * short-polls each queue into its handler (honouring `batchItemFailures`:
 * successes are deleted, failures come back after `retryDelaySeconds`),
 * fires due one-time schedules, and serves HTTP.
 */
export async function startLocalPipeline(options: LocalPipelineOptions): Promise<LocalPipeline> {
  const { clients, queues } = options
  const pollMs = options.pollMs ?? 50
  const logger = options.logger ?? console
  const handlers = pipelineHandlers(options.agentModule, {
    environment: options.environment,
    logger,
    httpResponseStream: streamingShim.HttpResponseStream,
    sqs: clients.sqs,
  })
  const stats: LocalPipeline['stats'] = {
    routerInvocations: 0,
    laneInvocations: {},
    schedulesFired: 0,
  }
  let running = true
  const loops: Promise<void>[] = []
  const loop = (name: string, step: () => Promise<boolean>) => {
    loops.push(
      (async () => {
        while (running) {
          let busy = false
          try {
            busy = await step()
          } catch (error) {
            if (running) logger.warn(`a2 local runner: ${name} poll failed: ${String(error)}`)
          }
          if (!busy) await sleep(pollMs)
        }
      })(),
    )
  }

  // The stream, as the DynamoDB event source mapping reads it.
  const { Table } = await clients.dynamodb.send(
    new DescribeTableCommand({ TableName: options.environment.tableName }),
  )
  const streamArn = Table?.LatestStreamArn
  if (!streamArn) throw new Error(`Table ${options.environment.tableName} has no stream`)
  const checkpoints = new Map<string, string | undefined>()
  loop('stream', async () => {
    const { StreamDescription } = await clients.streams.send(
      new DescribeStreamCommand({ StreamArn: streamArn }),
    )
    let busy = false
    for (const shard of StreamDescription?.Shards ?? []) {
      const shardId = shard.ShardId as string
      const after = checkpoints.get(shardId)
      const { ShardIterator } = await clients.streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shardId,
          ...(after
            ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }
            : { ShardIteratorType: 'TRIM_HORIZON' }),
        }),
      )
      if (!ShardIterator) continue
      const { Records = [] } = await clients.streams.send(
        new GetRecordsCommand({ ShardIterator, Limit: 100 }),
      )
      if (Records.length === 0) continue
      busy = true
      stats.routerInvocations++
      const result = await handlers.router({ Records: Records.map(lambdaStreamRecord) })
      const failed = result.batchItemFailures[0]?.itemIdentifier
      const position = failed
        ? Records.findIndex((record) => record.dynamodb?.SequenceNumber === failed)
        : -1
      // Resume at the first failed record, as Lambda does.
      const last = position === -1 ? Records.at(-1) : Records[position - 1]
      if (position !== 0) checkpoints.set(shardId, last?.dynamodb?.SequenceNumber ?? after)
    }
    return busy
  })

  // The queues, as the SQS event source mappings read them.
  const queueHandlers: [string, { url: string; arn: string }, PipelineHandlers['ingress']][] = [
    ['admission', queues.lanes.admission, handlers.admission],
    ['generation', queues.lanes.generation, handlers.generation],
    ['tools', queues.lanes.tools, handlers.tools],
    ['handlers', queues.lanes.handlers, handlers.handlers],
    ['ingress', queues.ingress, handlers.ingress],
    ['timers', queues.timers, handlers.timers],
  ]
  for (const [name, queue, handler] of queueHandlers) {
    loop(name, async () => {
      const { Messages = [] } = await clients.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queue.url,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      )
      if (Messages.length === 0) return false
      const event: SQSEvent = { Records: Messages.map((message) => sqsRecord(message, queue.arn)) }
      stats.laneInvocations[name] = (stats.laneInvocations[name] ?? 0) + 1
      const result = await handler(event)
      const failed = new Set(result.batchItemFailures.map((failure) => failure.itemIdentifier))
      const done = Messages.filter((message) => !failed.has(message.MessageId as string))
      const retry = Messages.filter((message) => failed.has(message.MessageId as string))
      if (done.length > 0) {
        await clients.sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queue.url,
            Entries: done.map((message, n) => ({
              Id: String(n),
              ReceiptHandle: message.ReceiptHandle,
            })),
          }),
        )
      }
      if (retry.length > 0) {
        await clients.sqs.send(
          new ChangeMessageVisibilityBatchCommand({
            QueueUrl: queue.url,
            Entries: retry.map((message, n) => ({
              Id: String(n),
              ReceiptHandle: message.ReceiptHandle,
              VisibilityTimeout: options.retryDelaySeconds ?? 1,
            })),
          }),
        )
      }
      return true
    })
  }

  // Scheduler: fire due one-time schedules to their target queue.
  loop('scheduler', async () => {
    const { Schedules = [] } = await clients.scheduler.send(
      new ListSchedulesCommand({ GroupName: options.environment.timers.scheduleGroup }),
    )
    let fired = false
    for (const summary of Schedules) {
      const schedule = await clients.scheduler.send(
        new GetScheduleCommand({
          Name: summary.Name,
          GroupName: options.environment.timers.scheduleGroup,
        }),
      )
      const at = /^at\((.+)\)$/.exec(schedule.ScheduleExpression ?? '')?.[1]
      if (!at || Date.parse(`${at}Z`) > Date.now()) continue
      if (schedule.Target?.Arn !== queues.timers.arn) {
        logger.warn(
          `a2 local runner: schedule ${summary.Name} targets ${schedule.Target?.Arn}, not the timer queue`,
        )
        continue
      }
      await clients.sqs.send(
        new SendMessageCommand({ QueueUrl: queues.timers.url, MessageBody: schedule.Target.Input }),
      )
      await clients.scheduler.send(
        new DeleteScheduleCommand({
          Name: summary.Name,
          GroupName: options.environment.timers.scheduleGroup,
        }),
      )
      stats.schedulesFired++
      fired = true
    }
    if (!fired) await sleep(500)
    return fired
  })

  const server = await serveStreamingHandler(
    handlers.http,
    options.port === undefined ? {} : { port: options.port },
  )
  return {
    url: `${server.url}/agent`,
    handlers,
    stats,
    async stop() {
      running = false
      await server.close()
      await Promise.all(loops)
    },
  }
}

/** A stream record as Lambda hands it over: attribute values as JSON, binaries as base64. */
function lambdaStreamRecord(record: StreamRecord): DynamoDBRecord {
  const image = record.dynamodb?.NewImage
  return {
    eventID: record.eventID as string,
    eventName: record.eventName as DynamoDBRecord['eventName'],
    eventSource: 'aws:dynamodb',
    dynamodb: {
      SequenceNumber: record.dynamodb?.SequenceNumber as string,
      ...(image ? { NewImage: lambdaImage(image as Record<string, AttributeValue>) } : {}),
    },
  }
}

function lambdaImage(
  image: Record<string, AttributeValue>,
): NonNullable<NonNullable<DynamoDBRecord['dynamodb']>['NewImage']> {
  return Object.fromEntries(
    Object.entries(image).map(([name, value]) => [
      name,
      value.B !== undefined ? { B: Buffer.from(value.B).toString('base64') } : (value as never),
    ]),
  )
}

function sqsRecord(
  message: {
    MessageId?: string
    ReceiptHandle?: string
    Body?: string
    Attributes?: Record<string, string>
    MD5OfBody?: string
  },
  queueArn: string,
): SQSRecord {
  return {
    messageId: message.MessageId as string,
    receiptHandle: message.ReceiptHandle as string,
    body: message.Body ?? '',
    attributes: (message.Attributes ?? {}) as unknown as SQSRecord['attributes'],
    messageAttributes: {},
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: queueArn.split(':')[3] ?? 'us-east-1',
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
