import { randomBytes } from 'node:crypto'
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
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs'
import type { Context, DynamoDBRecord, SQSEvent, SQSRecord } from 'aws-lambda'
import type { AwsEnvironment } from '../../../shared/aws/environment-variables.ts'
import type { InvocationMetrics } from '../../../shared/aws/lambda/cloudwatch-metrics.ts'
import type { PipelineHandlers } from '../../../shared/aws/lambda/handlers-by-function.ts'
import type { HttpAuth } from '../../../shared/aws/lambda/http-access.ts'
import type { PipelineLogger } from '../../../shared/aws/lambda/pipeline-agent.ts'
import { pipelineHandlers } from '../../../shared/aws/lambda/pipeline-handlers.ts'
import {
  QUEUE_FUNCTION_NAMES,
  QUEUE_FUNCTIONS,
  type QueueFunction,
  ROUTER_STREAM,
  VISIBILITY_LEASE,
  type VisibilityLease,
} from '../../../shared/aws/pipeline-functions.ts'
import { matchesFilterPattern, ROUTER_FILTER_PATTERNS } from '../../../shared/aws/stream-filter.ts'
import { sleep } from '../../../shared/timing/sleep.ts'
import { idleWaits } from './idle-waits.ts'
import type { LocalQueues } from './resources.ts'
import type { StreamPositions } from './stream-position.ts'
import { type LocalRoutes, serveStreamingHandler, streamingShim } from './streaming-shim.ts'

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
  /** Pause after a poll finds nothing (default 50 ms); it doubles while nothing happens. */
  pollMs?: number
  /** The longest pause between polls while nothing happens (default 1000 ms). */
  maxIdleMs?: number
  /** Function timeouts in seconds, where a test needs them shorter than deployed (`QUEUE_FUNCTIONS`). */
  functionTimeouts?: Partial<Record<QueueFunction, number>>
  /** How the queue handlers lease their messages (default: as deployed, `VISIBILITY_LEASE`). */
  lease?: VisibilityLease
  /**
   * Where the stream mapping keeps its position between runs, as Lambda keeps
   * an event source mapping's (default: nowhere, so each run reads the stream
   * from its start, `TRIM_HORIZON`, as a new mapping does). `npm run local`
   * keeps it in `.a2-local/`.
   */
  streamPositions?: StreamPositions
  /**
   * How the API checks callers (default: session tokens, as deployed, signed
   * with a key made for this process; `POST {}` opens a session).
   */
  auth?: HttpAuth
  port?: number
  hostname?: string
  /** Reads the server answers before the Lambda handler (the chat page, `/api/state`). */
  routes?: LocalRoutes
  /**
   * Sees each queue function's invocation as it starts, with its records:
   * for tests and benchmarks that trace the hops a turn crosses.
   */
  onInvoke?: (name: QueueFunction, records: readonly SQSRecord[]) => void
  logger?: PipelineLogger
  /** Where the runs' figures go, flushed as each invocation ends (default: the agent's own option), as the Lambda entry's EMF sink. */
  metrics?: InvocationMetrics
}

export interface LocalPipeline {
  /** The agent's endpoint, as API Gateway would serve it (every path but `routes`' reaches the HTTP handler). */
  url: string
  handlers: PipelineHandlers
  /** Counts of what the runner did, for tests and benchmarks. */
  stats: {
    routerInvocations: number
    laneInvocations: Record<string, number>
    /** Invocations cut off at their function's timeout. */
    timeouts: Record<string, number>
    /** Invocations ended by `kill()`. */
    kills: Record<string, number>
    schedulesFired: number
  }
  /**
   * Kills the running invocations that hold a record `matches` picks, as
   * when Lambda's process dies (out of memory, a crash): nothing of the
   * invocation runs on as far as AWS can tell (its lease is not renewed, its
   * messages are not deleted), and they come back when their visibility ends.
   */
  kill(matches: (record: SQSRecord) => boolean): number
  /** Records the router's mapping holds for its batching window (not yet invoked). */
  routerGathering(): number
  stop(): Promise<void>
}

/**
 * Plays the part of Lambda's event source mappings, Scheduler and API
 * Gateway on an AWS-compatible endpoint: polls the table's stream (a new
 * iterator after the last sequence number on every poll) into the router,
 * short-polls each queue into its handler as deployed (batch size, maximum
 * concurrency, function timeout; `batchItemFailures` honoured: successes are
 * deleted, the rest come back when their visibility ends), fires due one-time
 * schedules, and serves HTTP.
 */
export async function startLocalPipeline(options: LocalPipelineOptions): Promise<LocalPipeline> {
  const { clients, queues } = options
  const pollMs = options.pollMs ?? 50
  const logger = options.logger ?? console
  const lease = options.lease ?? VISIBILITY_LEASE
  const handlers = pipelineHandlers(options.agentModule, {
    environment: options.environment,
    logger,
    httpResponseStream: streamingShim.HttpResponseStream,
    auth: options.auth ?? { type: 'capability', key: randomBytes(32) },
    sqs: clients.sqs,
    dynamodb: clients.dynamodb,
    lease,
    ...(options.metrics ? { metrics: options.metrics } : {}),
  })
  const stats: LocalPipeline['stats'] = {
    routerInvocations: 0,
    laneInvocations: {},
    timeouts: {},
    kills: {},
    schedulesFired: 0,
  }
  let running = true
  const invocations = new Set<{ records: SQSRecord[]; kill: () => void }>()
  // Idle, the pollers back off (an emulator answering hundreds of empty
  // polls a second costs most of a core); work anywhere wakes them all.
  const idle = idleWaits({
    minMs: pollMs,
    maxMs: Math.max(pollMs, options.maxIdleMs ?? 1000),
    working: () => invocations.size > 0,
  })
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
          if (busy) idle.wake()
          else await idle.pause(name)
        }
      })(),
    )
  }
  // Requests append events (and end when they are stored): the stream and
  // the queues have work to look for.
  const http: typeof handlers.http = async (event, stream, context) => {
    idle.wake()
    try {
      return await handlers.http(event, stream, context)
    } finally {
      idle.wake()
    }
  }
  const server = await serveStreamingHandler(http, {
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.hostname === undefined ? {} : { hostname: options.hostname }),
    ...(options.routes ? { routes: options.routes } : {}),
  })
  const stop = async (): Promise<void> => {
    running = false
    idle.close()
    await server.close()
    await Promise.all(loops)
  }

  // The stream, as the DynamoDB event source mapping reads it, from where
  // the last run left off (Lambda keeps a mapping's position).
  const { streamArn, saved } = await (async () => {
    const arn = await tableStreamArn(clients.dynamodb, options.environment.tableName)
    return { streamArn: arn, saved: options.streamPositions?.read(arn) ?? {} }
  })().catch(async (error: unknown) => {
    // A pipeline that cannot start stops what it started.
    await stop()
    throw error
  })
  // Per shard: where the mapping resumes after a failure or a restart (the
  // last record a successful invocation covered), what it has read past
  // that, and since when it has been gathering a batch (the batching window).
  const shards = new Map<
    string,
    { checkpoint?: string; read?: string; gathered: StreamRecord[]; since?: number }
  >()
  let savedText = JSON.stringify(saved)
  /** Keeps the shards' checkpoints (never what is only read or gathered: that is read again). */
  const savePositions = () => {
    if (!options.streamPositions) return
    const positions: Record<string, string> = {}
    for (const [shardId, { checkpoint }] of shards) if (checkpoint) positions[shardId] = checkpoint
    const text = JSON.stringify(positions)
    if (text === savedText) return
    options.streamPositions.write(streamArn, positions)
    savedText = text
  }
  // As deployed: the mapping gathers for its batching window.
  const windowMs = ROUTER_STREAM.maxBatchingWindowSeconds * 1000
  loop('stream', async () => {
    const { StreamDescription } = await clients.streams.send(
      new DescribeStreamCommand({ StreamArn: streamArn }),
    )
    let busy = false
    for (const shard of StreamDescription?.Shards ?? []) {
      const shardId = shard.ShardId as string
      const resumeAt = saved[shardId]
      const state = shards.get(shardId) ?? {
        gathered: [],
        ...(resumeAt ? { checkpoint: resumeAt } : {}),
      }
      shards.set(shardId, state)
      const after = state.read ?? state.checkpoint
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
        new GetRecordsCommand({ ShardIterator, Limit: ROUTER_STREAM.batchSize }),
      )
      if (Records.length > 0) {
        busy = true
        state.read = Records.at(-1)?.dynamodb?.SequenceNumber ?? state.read
        // The event source mapping's filter runs before any invocation.
        for (const record of Records) {
          if (
            ROUTER_FILTER_PATTERNS.some((pattern) =>
              matchesFilterPattern(lambdaStreamRecord(record), pattern),
            )
          ) {
            state.gathered.push(record)
            state.since ??= Date.now()
          }
        }
        if (state.gathered.length === 0) state.checkpoint = state.read
      }
      if (state.gathered.length === 0) continue
      // As Lambda does: invoke once the window has passed since the batch's
      // first record, or when the batch is full.
      const full = state.gathered.length >= ROUTER_STREAM.batchSize
      if (!full && Date.now() - (state.since ?? 0) < windowMs) {
        // Gathering: look again soon, without waking every other poller.
        idle.found('stream')
        continue
      }
      const batch = state.gathered.splice(0, ROUTER_STREAM.batchSize)
      state.since = state.gathered.length > 0 ? Date.now() : undefined
      stats.routerInvocations++
      const result = await handlers.router({ Records: batch.map(lambdaStreamRecord) })
      const failed = result.batchItemFailures[0]?.itemIdentifier
      const position = failed
        ? batch.findIndex((record) => record.dynamodb?.SequenceNumber === failed)
        : -1
      if (position === -1) {
        // Records the filter dropped after the batch's last are covered too.
        state.checkpoint =
          state.gathered.length > 0 ? batch.at(-1)?.dynamodb?.SequenceNumber : state.read
        continue
      }
      // Resume at the first failed record, as Lambda does: read it again.
      if (position > 0) state.checkpoint = batch[position - 1]?.dynamodb?.SequenceNumber
      state.read = undefined
      state.gathered = []
      state.since = undefined
    }
    savePositions()
    return busy
  })

  // The queues, as Lambda's SQS event source mappings read them: up to
  // `maxConcurrency` invocations at once per queue (FIFO message groups in
  // flight are not received again: the emulator holds them back, as SQS
  // does), each cut off at its function's timeout. Successes are deleted;
  // failures and timed-out batches are left alone and come back when their
  // visibility ends, which is what the handler set (a lease, a retry delay):
  // exactly what Lambda does.
  //
  // One difference, because here the mapping dies with the functions: a
  // message is received already leased (`VisibilityTimeout` is the lease's,
  // which the handler then renews), not under the queue's own timeout. On
  // AWS the mapping outlives a container and a dead invocation's messages
  // come back one lease after its last renewal. A runner killed (SIGKILL)
  // while a receive was on its way back would otherwise leave that message,
  // and its session's whole FIFO group, in flight for the queue's visibility
  // timeout (6x the function's: an hour for a model step), with no lease
  // set and nobody to set one; the router's copy and a reader's recovery
  // wake-up are the same wake-up and SQS drops them as duplicates. Leased at
  // the receive, it comes back within a lease, as after any crash.
  for (const name of QUEUE_FUNCTION_NAMES) {
    const spec = QUEUE_FUNCTIONS[name]
    const queue = name === 'ingress' || name === 'timers' ? queues[name] : queues.lanes[name]
    const timeoutMs = (options.functionTimeouts?.[name] ?? spec.timeoutSeconds) * 1000
    const inFlight = new Set<Promise<void>>()
    loop(name, async () => {
      if (inFlight.size >= spec.maxConcurrency) {
        await Promise.race(inFlight)
        return true
      }
      const { Messages = [] } = await clients.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queue.url,
          MaxNumberOfMessages: spec.batchSize,
          WaitTimeSeconds: 0,
          VisibilityTimeout: lease.seconds,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      )
      if (Messages.length === 0) return false
      stats.laneInvocations[name] = (stats.laneInvocations[name] ?? 0) + 1
      const invocation = invoke(name, queue, Messages, timeoutMs).catch((error: unknown) => {
        if (running) logger.warn(`a2 local runner: ${name} invocation failed: ${String(error)}`)
      })
      inFlight.add(invocation)
      void invocation.finally(() => {
        inFlight.delete(invocation)
        // What it appended and sent, and the message group its deleted
        // messages held back, are work for the stream and the queues.
        idle.wake()
      })
      return true
    })
  }

  async function invoke(
    name: QueueFunction,
    queue: { url: string; arn: string },
    messages: Message[],
    timeoutMs: number,
  ): Promise<void> {
    const event: SQSEvent = { Records: messages.map((message) => sqsRecord(message, queue.arn)) }
    let deadline = Date.now() + timeoutMs
    let timer: ReturnType<typeof setTimeout> | undefined
    let killed: (outcome: 'killed') => void = () => {}
    const ended = new Promise<'timed out' | 'killed'>((resolve) => {
      timer = setTimeout(() => resolve('timed out'), timeoutMs)
      killed = resolve
    })
    const invocation = {
      records: event.Records,
      kill: () => {
        deadline = 0
        killed('killed')
      },
    }
    invocations.add(invocation)
    options.onInvoke?.(name, event.Records)
    const context = {
      ...lambdaContext(name),
      getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    }
    const outcome = await Promise.race([handlers[name](event, context), ended]).finally(() => {
      clearTimeout(timer)
      invocations.delete(invocation)
    })
    if (outcome === 'killed') {
      stats.kills[name] = (stats.kills[name] ?? 0) + 1
      return
    }
    if (outcome === 'timed out') {
      stats.timeouts[name] = (stats.timeouts[name] ?? 0) + 1
      logger.warn(
        `a2 local runner: the ${name} function timed out after ${timeoutMs / 1000} s; its messages come back when their visibility ends`,
      )
      return
    }
    const failed = new Set(outcome.batchItemFailures.map((failure) => failure.itemIdentifier))
    const done = messages.filter((message) => !failed.has(message.MessageId as string))
    if (done.length === 0) return
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

  return {
    url: `${server.url}/api/agent`,
    handlers,
    stats,
    kill(matches) {
      const victims = [...invocations].filter((invocation) => invocation.records.some(matches))
      for (const victim of victims) victim.kill()
      return victims.length
    },
    routerGathering: () =>
      [...shards.values()].reduce((sum, shard) => sum + shard.gathered.length, 0),
    stop,
  }
}

async function tableStreamArn(dynamodb: DynamoDBClient, tableName: string): Promise<string> {
  const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: tableName }))
  if (!Table?.LatestStreamArn) throw new Error(`Table ${tableName} has no stream`)
  return Table.LatestStreamArn
}

/** A stream record as Lambda hands it over: attribute values as JSON, binaries as base64. */
function lambdaStreamRecord(record: StreamRecord): DynamoDBRecord {
  const image = record.dynamodb?.NewImage
  return {
    eventID: record.eventID as string,
    eventName: record.eventName as DynamoDBRecord['eventName'],
    eventSource: 'aws:dynamodb',
    ...(record.userIdentity ? { userIdentity: record.userIdentity } : {}),
    dynamodb: {
      SequenceNumber: record.dynamodb?.SequenceNumber as string,
      Keys: record.dynamodb?.Keys as never,
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

/** The part of Lambda's context the handlers read (the runner adds the time left). */
function lambdaContext(name: QueueFunction): Omit<Context, 'getRemainingTimeInMillis'> {
  return {
    functionName: `a2-local-${name}`,
    awsRequestId: crypto.randomUUID(),
  } as Context
}

function sqsRecord(message: Message, queueArn: string): SQSRecord {
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
