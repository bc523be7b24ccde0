import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { SchedulerClient } from '@aws-sdk/client-scheduler'
import { SQSClient } from '@aws-sdk/client-sqs'
import type { EventStore } from '../log/event-store.ts'
import { QUEUE_LANES } from '../runtime/lane-table.ts'
import type { Scheduler } from '../runtime/scheduler.ts'
import type { Dispatcher } from '../runtime/wake-up.ts'
import { dynamoDBEventStore } from '../stores/dynamodb/dynamodb-event-store.ts'
import {
  type AwsEnvironment,
  DEFAULT_METRICS_TARGET,
  ENVIRONMENT_VARIABLES,
  ERASE_GRANTS,
  type EraseGrant,
  laneQueueUrlVariable,
} from './environment-variables.ts'
import { PipelineError } from './errors.ts'
import { eventBridgeScheduler } from './eventbridge-scheduler.ts'
import { DEFAULT_MAX_RECEIVE_COUNT } from './pipeline-functions.ts'
import { type LaneQueueUrls, sqsDispatcher } from './sqs-dispatcher.ts'

export { DEFAULT_METRICS_TARGET }

/**
 * Reads the pipeline's configuration from the environment, once, at the edge
 * (adapters take it as options). Every missing variable is named in one
 * `MISSING_ENVIRONMENT` error.
 */
export function readAwsEnvironment(
  env: Record<string, string | undefined> = process.env,
): AwsEnvironment {
  const missing: string[] = []
  const required = (name: string): string => {
    const value = env[name]
    if (!value) missing.push(name)
    return value ?? ''
  }
  const v = ENVIRONMENT_VARIABLES
  const environment: AwsEnvironment = {
    tableName: required(v.tableName),
    queueUrls: Object.fromEntries(
      QUEUE_LANES.map((lane) => [lane, required(laneQueueUrlVariable(lane))]),
    ) as LaneQueueUrls,
    ingressQueueUrl: required(v.ingressQueueUrl),
    timers: {
      queueUrl: required(v.timerQueueUrl),
      queueArn: required(v.timerQueueArn),
      scheduleGroup: required(v.scheduleGroup),
      schedulerRoleArn: required(v.schedulerRoleArn),
      deadLetterQueueArn: required(v.schedulerDeadLetterQueueArn),
    },
    agentExport: env[v.agentExport] || 'default',
    maxReceiveCount: DEFAULT_MAX_RECEIVE_COUNT,
  }
  if (env[v.retention]) environment.retention = env[v.retention]
  const maxReceiveCount = env[v.maxReceiveCount]
  if (maxReceiveCount) {
    const count = Number(maxReceiveCount)
    if (Number.isInteger(count) && count >= 1 && count <= 1000) environment.maxReceiveCount = count
    else missing.push(`${v.maxReceiveCount} (an integer from 1 to 1000, not "${maxReceiveCount}")`)
  }
  if (env[v.endpoint]) environment.endpoint = env[v.endpoint] as string
  const namespace = env[v.metricsNamespace]
  const service = env[v.metricsService]
  if (namespace || service) {
    environment.metrics = {
      namespace: namespace || DEFAULT_METRICS_TARGET.namespace,
      service: service || DEFAULT_METRICS_TARGET.service,
    }
  }
  if (env[v.modelTelemetry] === 'true') environment.modelTelemetry = true
  const erase = env[v.erase]
  if (erase) {
    if ((ERASE_GRANTS as readonly string[]).includes(erase)) environment.erase = erase as EraseGrant
    else missing.push(`${v.erase} (${ERASE_GRANTS.join(' or ')}, not "${erase}")`)
  }
  if (missing.length > 0) {
    throw new PipelineError(
      'MISSING_ENVIRONMENT',
      `The a2 pipeline needs ${missing.join(', ')} (the A2Agent construct sets them; the local runner too)`,
    )
  }
  return environment
}

export interface AwsClients {
  dynamodb: DynamoDBClient
  sqs: SQSClient
  scheduler: SchedulerClient
}

/** SDK clients for the environment, created once per container. */
export function awsClients(environment: Pick<AwsEnvironment, 'endpoint'>): AwsClients {
  const config = environment.endpoint ? { endpoint: environment.endpoint } : {}
  return {
    dynamodb: new DynamoDBClient(config),
    sqs: new SQSClient(config),
    scheduler: new SchedulerClient(config),
  }
}

export interface AwsAgentParts {
  store: EventStore
  dispatcher: Dispatcher
  scheduler: Scheduler
  clients: AwsClients
  environment: AwsEnvironment
  /** The construct's `retention`, spread into `agent()`'s options with the rest. */
  retention?: string
}

/**
 * The store, dispatcher and scheduler of an agent on AWS, from the
 * environment the construct sets (read once, here).
 *
 * @example
 * export default agent({ name: 'support-agent', model, ...awsAgentParts() })
 */
export function awsAgentParts(
  options: { environment?: AwsEnvironment; clients?: AwsClients } = {},
): AwsAgentParts {
  const environment = options.environment ?? readAwsEnvironment()
  const clients = options.clients ?? awsClients(environment)
  const store = dynamoDBEventStore({ client: clients.dynamodb, tableName: environment.tableName })
  const scheduler = eventBridgeScheduler({
    scheduler: clients.scheduler,
    sqs: clients.sqs,
    groupName: environment.timers.scheduleGroup,
    roleArn: environment.timers.schedulerRoleArn,
    timerQueueArn: environment.timers.queueArn,
    timerQueueUrl: environment.timers.queueUrl,
    deadLetterQueueArn: environment.timers.deadLetterQueueArn,
  })
  const refused = environment.erase === 'not-granted'
  return {
    store: refused ? { ...store, erase: eraseNotGranted } : store,
    dispatcher: sqsDispatcher({ client: clients.sqs, queueUrls: environment.queueUrls }),
    scheduler: refused ? { ...scheduler, cancel: eraseNotGranted } : scheduler,
    clients,
    environment,
    ...(environment.retention ? { retention: environment.retention } : {}),
  }
}

/**
 * An erase in a function whose role may not erase: on AWS it would fail
 * half-way with AccessDenied (after cancelling nothing, or before deleting
 * the head), so it fails before the first request, naming the grant.
 */
async function eraseNotGranted(): Promise<never> {
  throw new PipelineError('ERASE_NOT_GRANTED', ERASE_NOT_GRANTED_MESSAGE)
}

const ERASE_NOT_GRANTED_MESSAGE =
  "session.erase() needs a role that may erase sessions, and this function's has no such grant: give the A2Agent the prop `erase: true`, which lets the lane functions (where tools and handlers run) call scheduler:ListSchedules and scheduler:DeleteSchedule on the agent's schedule group and dynamodb:DeleteItem and dynamodb:BatchWriteItem on its table. Nothing was erased."

export { environmentVariables } from './environment-variables.ts'
