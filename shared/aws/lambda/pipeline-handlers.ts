import { type AgentMetrics, safeMetrics } from '../../agent/wiring/agent-metrics.ts'
import { QUEUE_LANES, type QueueLane } from '../../runtime/lane-table.ts'
import { awsClients } from '../agent-environment.ts'
import type { AwsEnvironment } from '../environment-variables.ts'
import { VISIBILITY_LEASE, type VisibilityLease } from '../pipeline-functions.ts'
import { aroundEachInvocation } from './around-invocations.ts'
import type { AwsLambdaGlobal } from './awslambda.ts'
import type { InvocationMetrics } from './cloudwatch-metrics.ts'
import type { PipelineHandlers } from './handlers-by-function.ts'
import { type HttpAuth, httpAccess } from './http-access.ts'
import { httpHandler } from './http-handler.ts'
import { ingressHandler, timerHandler } from './ingress-handler.ts'
import { laneHandler } from './lane-handler.ts'
import { agentFromModule, authorizeFromModule, type PipelineLogger } from './pipeline-agent.ts'
import { routerHandler } from './router-handler.ts'
import { leasingMessages, type SqsHandler } from './visibility-lease.ts'

/**
 * Every function of the pipeline for one agent module: what the Lambda entry
 * points in `functions/` export, and what the local runner invokes. Each
 * queue's handler leases its messages (`leasingMessages`), so a failed or
 * crashed invocation is retried within seconds, not at the queue's
 * visibility timeout.
 */
export function pipelineHandlers(
  agentModule: Record<string, unknown>,
  options: {
    environment: Pick<
      AwsEnvironment,
      | 'tableName'
      | 'queueUrls'
      | 'ingressQueueUrl'
      | 'timers'
      | 'endpoint'
      | 'agentExport'
      | 'maxReceiveCount'
    >
    logger: PipelineLogger
    httpResponseStream: AwsLambdaGlobal['HttpResponseStream']
    /**
     * How the API checks callers (`readHttpAuth()` on Lambda; no default, on
     * purpose). A function is called on the first HTTP request only, so the
     * queue functions never need the HTTP functions' settings.
     */
    auth: HttpAuth | (() => HttpAuth)
    sqs?: ReturnType<typeof awsClients>['sqs']
    /** The router's client for erasing expired sessions (default: one for the environment). */
    dynamodb?: ReturnType<typeof awsClients>['dynamodb']
    /** How queue handlers hold their messages (default `VISIBILITY_LEASE`). */
    lease?: VisibilityLease
    /**
     * Where the runs' figures go (the Lambda entry: CloudWatch EMF), flushed
     * as each invocation ends, failed or not. Default: the agent's own option.
     */
    metrics?: InvocationMetrics
    /** The AI SDK's telemetry on for every model call the lanes make. */
    modelTelemetry?: boolean
  },
): PipelineHandlers {
  const { environment, logger } = options
  const agent = agentFromModule(agentModule, environment.agentExport)
  const authorize = authorizeFromModule(agentModule)
  let sqs = options.sqs
  const client = () => {
    sqs ??= awsClients(environment).sqs
    return sqs
  }
  let dynamodb = options.dynamodb
  const tableClient = () => {
    dynamodb ??= awsClients(environment).dynamodb
    return dynamodb
  }
  const { maxReceiveCount } = environment
  if (agent.version !== undefined) options.metrics?.describe?.({ agentVersion: agent.version })
  // A figure is never worth a failed invocation (and a batch redelivered).
  const metrics = options.metrics ? safeMetrics(options.metrics) : undefined
  const lanes = {
    logger,
    maxReceiveCount,
    ...(metrics ? { metrics } : {}),
    ...(options.modelTelemetry === undefined ? {} : { modelTelemetry: options.modelTelemetry }),
  }
  const leased = (handler: SqsHandler, queueUrl: string): SqsHandler =>
    leasingMessages(handler, {
      client,
      queueUrl,
      lease: options.lease ?? VISIBILITY_LEASE,
      maxReceiveCount,
      logger,
    })
  const handlers: PipelineHandlers = {
    http: httpHandler(agent, {
      logger,
      httpResponseStream: options.httpResponseStream,
      access: () =>
        httpAccess(typeof options.auth === 'function' ? options.auth() : options.auth, authorize),
      ...(metrics ? { metrics } : {}),
    }),
    router: (event) =>
      routerHandler(
        agent,
        { client: client(), queueUrls: environment.queueUrls },
        { client: tableClient(), tableName: environment.tableName },
        logger,
      )(event),
    // One per queue lane of the lane table (shared/runtime/lane-table.ts).
    ...(Object.fromEntries(
      QUEUE_LANES.map((lane) => [
        lane,
        leased(laneHandler(agent, lane, lanes), environment.queueUrls[lane]),
      ]),
    ) as Record<QueueLane, SqsHandler>),
    ingress: leased(ingressHandler(agent, logger, metrics), environment.ingressQueueUrl),
    timers: leased(timerHandler(agent, logger, metrics), environment.timers.queueUrl),
  }
  return metrics ? flushingMetrics(metrics, handlers) : handlers
}

/** Each handler, writing its invocation's figures as it ends (one EMF line), failed or not. */
function flushingMetrics(metrics: AgentMetrics, handlers: PipelineHandlers): PipelineHandlers {
  return aroundEachInvocation(handlers, async (_name, run) => {
    try {
      return await run()
    } finally {
      metrics.flush?.()
    }
  })
}
