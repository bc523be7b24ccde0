// No SDK imports (types aside, which load nothing): the CDK construct reads these at synth time.
import { QUEUE_LANES, type QueueLane } from '../runtime/lane-table.ts'
import type { LaneQueueUrls } from './sqs-dispatcher.ts'

/** The pipeline's configuration, as its functions' environment holds it (`readAwsEnvironment`). */
export interface AwsEnvironment {
  tableName: string
  queueUrls: LaneQueueUrls
  timers: {
    queueUrl: string
    queueArn: string
    scheduleGroup: string
    schedulerRoleArn: string
    deadLetterQueueArn: string
  }
  /** The ingress queue (its handler leases and retries its own messages). */
  ingressQueueUrl: string
  endpoint?: string
  agentExport: string
  /** The lane queues' redrive maxReceiveCount: the last receive dead-letters. */
  maxReceiveCount: number
  /** Where the functions' metrics go in CloudWatch (default: namespace and service `a2`). */
  metrics?: { namespace: string; service: string }
  /** The AI SDK's telemetry on for every model call (default off). */
  modelTelemetry?: boolean
  /** The agent's `retention` (`'30 days'`), from the construct's `retention` prop. */
  retention?: string
  /**
   * Whether this function's role may erase sessions (the construct's
   * `erase` prop). Unset (a local run, an operator's script): erase as the
   * credentials allow.
   */
  erase?: EraseGrant
}

/** The variable holding a lane queue's URL, one per queue lane of the lane table. */
export const laneQueueUrlVariable = (lane: QueueLane): string =>
  `A2_${lane.toUpperCase()}_QUEUE_URL`

/** Where the functions' metrics go when the environment does not say. */
export const DEFAULT_METRICS_TARGET = { namespace: 'a2', service: 'a2' }

/** The environment variables the construct sets on every function, besides the lane queues'. */
export const ENVIRONMENT_VARIABLES = {
  tableName: 'A2_TABLE_NAME',
  ingressQueueUrl: 'A2_INGRESS_QUEUE_URL',
  timerQueueUrl: 'A2_TIMER_QUEUE_URL',
  timerQueueArn: 'A2_TIMER_QUEUE_ARN',
  scheduleGroup: 'A2_SCHEDULE_GROUP',
  schedulerRoleArn: 'A2_SCHEDULER_ROLE_ARN',
  schedulerDeadLetterQueueArn: 'A2_SCHEDULER_DLQ_ARN',
  /** Optional: the lane queues' redrive maxReceiveCount (default 5). */
  maxReceiveCount: 'A2_MAX_RECEIVE_COUNT',
  /** Optional: an AWS-compatible endpoint (the moto server, LocalStack). */
  endpoint: 'A2_AWS_ENDPOINT',
  /** Optional: the agent module's export (default `default`). */
  agentExport: 'A2_AGENT_EXPORT',
  /** Optional: the CloudWatch namespace of the functions' metrics (default `a2`). */
  metricsNamespace: 'A2_METRICS_NAMESPACE',
  /** Optional: their `service` dimension (default `a2`; the construct sets its own path). */
  metricsService: 'A2_METRICS_SERVICE',
  /** Optional: `true` turns the AI SDK's telemetry on for every model call. */
  modelTelemetry: 'A2_MODEL_TELEMETRY',
  /** Optional: variables to read from Secrets Manager or SSM at cold start, `{ NAME: arn }` as JSON. */
  secrets: 'A2_SECRETS',
  /** Optional: the agent's retention (`'30 days'`): idle sessions expire whole. */
  retention: 'A2_RETENTION',
  /**
   * Optional: `granted` or `not-granted`, whether the function's role may
   * erase sessions (the construct's `erase` prop). `not-granted` makes
   * `erase()` fail at once, naming the prop, before it changes anything.
   */
  erase: 'A2_ERASE',
} as const

/** The values of `A2_ERASE`. */
export const ERASE_GRANTS = ['granted', 'not-granted'] as const
export type EraseGrant = (typeof ERASE_GRANTS)[number]

/** A variable a secret may fill (the construct's `secrets`): an environment variable name outside A2's own. */
export const SECRET_VARIABLE = /^(?!A2_)[A-Za-z_][A-Za-z0-9_]*$/

/** The inverse of `readAwsEnvironment`: the variables that describe `environment`. */
export function environmentVariables(environment: AwsEnvironment): Record<string, string> {
  const v = ENVIRONMENT_VARIABLES
  return {
    [v.tableName]: environment.tableName,
    ...Object.fromEntries(
      QUEUE_LANES.map((lane) => [laneQueueUrlVariable(lane), environment.queueUrls[lane]]),
    ),
    [v.ingressQueueUrl]: environment.ingressQueueUrl,
    [v.timerQueueUrl]: environment.timers.queueUrl,
    [v.timerQueueArn]: environment.timers.queueArn,
    [v.scheduleGroup]: environment.timers.scheduleGroup,
    [v.schedulerRoleArn]: environment.timers.schedulerRoleArn,
    [v.schedulerDeadLetterQueueArn]: environment.timers.deadLetterQueueArn,
    [v.agentExport]: environment.agentExport,
    [v.maxReceiveCount]: String(environment.maxReceiveCount),
    ...(environment.endpoint ? { [v.endpoint]: environment.endpoint } : {}),
    ...(environment.metrics
      ? {
          [v.metricsNamespace]: environment.metrics.namespace,
          [v.metricsService]: environment.metrics.service,
        }
      : {}),
    ...(environment.modelTelemetry ? { [v.modelTelemetry]: 'true' } : {}),
    ...(environment.retention ? { [v.retention]: environment.retention } : {}),
    ...(environment.erase ? { [v.erase]: environment.erase } : {}),
  }
}
