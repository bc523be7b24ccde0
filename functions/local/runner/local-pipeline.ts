import { randomBytes } from 'node:crypto'
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams'
import type { SchedulerClient } from '@aws-sdk/client-scheduler'
import type { SQSClient } from '@aws-sdk/client-sqs'
import type { SQSRecord } from 'aws-lambda'
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
  VISIBILITY_LEASE,
  type VisibilityLease,
} from '../../../shared/aws/pipeline-functions.ts'
import { type IdleWaits, idleWaits } from './idle-waits.ts'
import { queuePoll } from './queue-mapping.ts'
import type { LocalQueues } from './resources.ts'
import type { PipelineStats, RunnerContext, RunningInvocation } from './runner-context.ts'
import { fireDueSchedules } from './schedule-firing.ts'
import { streamMapping, tableStreamArn } from './stream-mapping.ts'
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
  stats: PipelineStats
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
  const handlers = localHandlers(options, logger, lease)
  let running = true
  const invocations = new Set<RunningInvocation>()
  const context: RunnerContext = {
    handlers,
    stats: {
      routerInvocations: 0,
      laneInvocations: {},
      timeouts: {},
      kills: {},
      schedulesFired: 0,
    },
    logger,
    // Idle, the pollers back off (an emulator answering hundreds of empty
    // polls a second costs most of a core); work anywhere wakes them all.
    idle: idleWaits({
      minMs: pollMs,
      maxMs: Math.max(pollMs, options.maxIdleMs ?? 1000),
      working: () => invocations.size > 0,
    }),
    invocations,
    running: () => running,
  }
  const loops: Promise<void>[] = []
  const loop = (name: string, step: () => Promise<boolean>) => {
    loops.push(pollLoop(context, name, step))
  }
  const server = await serveStreamingHandler(wakingHttp(handlers.http, context.idle), {
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.hostname === undefined ? {} : { hostname: options.hostname }),
    ...(options.routes ? { routes: options.routes } : {}),
  })
  const stop = async (): Promise<void> => {
    running = false
    context.idle.close()
    await server.close()
    await Promise.all(loops)
  }

  // The stream, as the DynamoDB event source mapping reads it, from where
  // the last run left off (Lambda keeps a mapping's position).
  const start = await streamStart(options).catch(async (error: unknown) => {
    // A pipeline that cannot start stops what it started.
    await stop()
    throw error
  })
  const stream = streamMapping(context, clients.streams, start)
  loop('stream', stream.poll)

  // The queues, as Lambda's SQS event source mappings read them (see `queuePoll`).
  for (const name of QUEUE_FUNCTION_NAMES) {
    const queue = name === 'ingress' || name === 'timers' ? queues[name] : queues.lanes[name]
    const timeoutMs =
      (options.functionTimeouts?.[name] ?? QUEUE_FUNCTIONS[name].timeoutSeconds) * 1000
    const mapping = { name, queue, timeoutMs, lease, onInvoke: options.onInvoke }
    loop(name, queuePoll(context, clients.sqs, mapping))
  }

  // Scheduler: fire due one-time schedules to their target queue.
  const { scheduleGroup } = options.environment.timers
  loop('scheduler', () =>
    fireDueSchedules(context, clients, { scheduleGroup, timers: queues.timers }),
  )

  return {
    url: `${server.url}/api/agent`,
    handlers,
    stats: context.stats,
    kill(matches) {
      const victims = [...invocations].filter((invocation) => invocation.records.some(matches))
      for (const victim of victims) victim.kill()
      return victims.length
    },
    routerGathering: stream.gathering,
    stop,
  }
}

/** The table's stream, and where the last run's mapping left each shard. */
async function streamStart({ clients, environment, streamPositions }: LocalPipelineOptions) {
  const streamArn = await tableStreamArn(clients.dynamodb, environment.tableName)
  return { streamArn, saved: streamPositions?.read(streamArn) ?? {}, positions: streamPositions }
}

/** The deployed functions' handlers, on the local clients, with a session key made for this process unless `auth` says otherwise. */
function localHandlers(
  options: LocalPipelineOptions,
  logger: PipelineLogger,
  lease: VisibilityLease,
): PipelineHandlers {
  const { clients } = options
  return pipelineHandlers(options.agentModule, {
    environment: options.environment,
    logger,
    httpResponseStream: streamingShim.HttpResponseStream,
    auth: options.auth ?? { type: 'capability', key: randomBytes(32) },
    sqs: clients.sqs,
    dynamodb: clients.dynamodb,
    lease,
    ...(options.metrics ? { metrics: options.metrics } : {}),
  })
}

/** Runs `step` until the pipeline stops, pausing (backing off) after a step that found nothing. */
async function pollLoop(
  { idle, logger, running }: RunnerContext,
  name: string,
  step: () => Promise<boolean>,
): Promise<void> {
  while (running()) {
    let busy = false
    try {
      busy = await step()
    } catch (error) {
      if (running()) logger.warn(`a2 local runner: ${name} poll failed: ${String(error)}`)
    }
    if (busy) idle.wake()
    else await idle.pause(name)
  }
}

/**
 * Requests append events (and end when they are stored): the stream and
 * the queues have work to look for.
 */
function wakingHttp(http: PipelineHandlers['http'], idle: IdleWaits): PipelineHandlers['http'] {
  return async (event, stream, context) => {
    idle.wake()
    try {
      return await http(event, stream, context)
    } finally {
      idle.wake()
    }
  }
}
