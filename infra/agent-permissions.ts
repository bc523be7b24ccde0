import { Duration, Stack } from 'aws-cdk-lib'
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb'
import * as iam from 'aws-cdk-lib/aws-iam'
import * as lambda from 'aws-cdk-lib/aws-lambda'
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources'
import type * as scheduler from 'aws-cdk-lib/aws-scheduler'
import type * as sqs from 'aws-cdk-lib/aws-sqs'
import type { Construct } from 'constructs'
import { ENVIRONMENT_VARIABLES } from '../shared/aws/environment-variables.ts'
import {
  QUEUE_FUNCTION_NAMES,
  QUEUE_LANES,
  type QueueLane,
  ROUTER_STREAM,
} from '../shared/aws/pipeline-functions.ts'
import { ROUTER_FILTER_PATTERN, ROUTER_FILTER_PATTERNS } from '../shared/aws/stream-filter.ts'
import type { A2AgentProps } from './a2-agent-props.ts'
import type { AgentFunctions } from './agent-functions.ts'

/** What every function that reads the log may do on the table. */
const TABLE_READS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'] as const

/**
 * What each function may do, least privilege per function, and the
 * router's stream source. Answers what cdk-nag's acknowledgements name: the
 * schedule ARN pattern, the functions that carry the agent's bundle, and
 * whether erase was granted.
 */
export function grantAgentPermissions(
  scope: Construct,
  props: Pick<A2AgentProps, 'retention' | 'erase'>,
  parts: {
    table: dynamodb.Table
    functions: AgentFunctions
    laneQueues: Record<QueueLane, sqs.Queue>
    timerQueue: sqs.Queue
    routerFailureQueue: sqs.Queue
    scheduleGroup: scheduler.ScheduleGroup
    schedulerRole: iam.Role
  },
): { scheduleArn: string; agentFunctions: lambda.IFunction[]; eraseGranted: boolean } {
  const { functions } = parts
  // The router reads the stream (granted by the event source) and sends
  // wake-ups. Its only use of the table's items is retention: once TTL has
  // deleted a session's head, it reads the session's partition and its ID
  // guards and deletes them, each batch in a transaction that checks the
  // head is still absent (eraseSession's headless mode). It never writes.
  // Without retention no head expires, so it sees no TTL delete (the second
  // filter) and may touch no item: a head some other writer expired would
  // otherwise fail its batch on AccessDenied, retried until it is dropped.
  functions.router.addEventSource(
    new DynamoEventSource(parts.table, {
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: ROUTER_STREAM.batchSize,
      maxBatchingWindow: Duration.seconds(ROUTER_STREAM.maxBatchingWindowSeconds),
      parallelizationFactor: 1,
      bisectBatchOnError: true,
      reportBatchItemFailures: true,
      retryAttempts: 10,
      maxRecordAge: Duration.hours(24),
      onFailure: new SqsDlq(parts.routerFailureQueue),
      filters: (props.retention ? ROUTER_FILTER_PATTERNS : [ROUTER_FILTER_PATTERN]).map((pattern) =>
        lambda.FilterCriteria.filter(pattern),
      ),
    }),
  )
  for (const lane of QUEUE_LANES) parts.laneQueues[lane].grantSendMessages(functions.router)
  if (props.retention) {
    functions.router.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:Query', 'dynamodb:BatchGetItem'],
        resources: [parts.table.tableArn],
      }),
    )
    // Its deletes are a headless erase's: Delete actions in a transaction
    // beside a ConditionCheck that the head is absent, authorized as
    // DeleteItem and ConditionCheckItem with dynamodb:EnclosingOperation
    // (as the appenders' heal, below): never a lone DeleteItem.
    functions.router.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:ConditionCheckItem', 'dynamodb:DeleteItem'],
        resources: [parts.table.tableArn],
        conditions: { StringEquals: { 'dynamodb:EnclosingOperation': 'TransactWriteItems' } },
      }),
    )
  }

  // Least privilege per function: everything that appends reads and writes
  // the log and wakes lanes (the fast path); only the lanes run tools and
  // handlers, so only they set timers. The GET function only reads: it
  // streams the log, answers heads and claims, and wakes admission (a
  // reader's recovery), so it may read the table and send to the
  // admission queue, nothing else.
  const appendingFunctions = [
    functions.http,
    ...QUEUE_FUNCTION_NAMES.map((name) => functions[name]),
  ]
  const agentFunctions = [functions.http, functions.stream, ...appendingFunctions.slice(1)]
  for (const appending of appendingFunctions) {
    appending.addToRolePolicy(
      new iam.PolicyStatement({
        actions: [
          ...TABLE_READS,
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
          'dynamodb:ConditionCheckItem',
        ],
        resources: [parts.table.tableArn],
      }),
    )
    for (const lane of QUEUE_LANES) parts.laneQueues[lane].grantSendMessages(appending)
  }
  if (props.retention) {
    // Retention's heal on append: an append that meets a session whose head
    // TTL deleted erases what the session left, in transactions of Delete
    // actions that check the head is still absent (eraseSession's headless
    // mode), then starts the log over. A Delete in a transaction is
    // authorized as dynamodb:DeleteItem ("Permissions for Put, Update,
    // Delete, and Get actions are governed by the permissions used for the
    // underlying PutItem, UpdateItem, DeleteItem, and GetItem operations",
    // "Using IAM with DynamoDB transactions",
    // https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis-iam.html),
    // so the appending functions may delete, but only inside a
    // TransactWriteItems (dynamodb:EnclosingOperation): never a lone
    // DeleteItem or a BatchWriteItem.
    for (const appending of appendingFunctions) {
      appending.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['dynamodb:DeleteItem'],
          resources: [parts.table.tableArn],
          conditions: { StringEquals: { 'dynamodb:EnclosingOperation': 'TransactWriteItems' } },
        }),
      )
    }
  }
  functions.stream.addToRolePolicy(
    new iam.PolicyStatement({ actions: [...TABLE_READS], resources: [parts.table.tableArn] }),
  )
  parts.laneQueues.admission.grantSendMessages(functions.stream)
  const scheduleArn = Stack.of(scope).formatArn({
    service: 'scheduler',
    resource: 'schedule',
    resourceName: `${parts.scheduleGroup.scheduleGroupName}/*`,
  })
  for (const lane of QUEUE_LANES) {
    const laneFunction = functions[lane]
    parts.timerQueue.grantSendMessages(laneFunction)
    laneFunction.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['scheduler:CreateSchedule', 'scheduler:GetSchedule'],
        resources: [scheduleArn],
      }),
    )
    laneFunction.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [parts.schedulerRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    )
  }

  // Erasing a session (eraseAgentSession): cancel its schedules, then
  // overwrite its events with tombstones (BatchWriteItem's puts, and a
  // PutItem past the end: the lanes append, so they have PutItem), delete
  // every other item of its partition and its ID guards (BatchWriteItem),
  // its head (a conditional DeleteItem) and what lands after (Deletes in a
  // transaction, authorized as DeleteItem). ListSchedules has no resource
  // type, so it takes `*` (Service Authorization Reference, "Actions,
  // resources, and condition keys for Amazon EventBridge Scheduler":
  // https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoneventbridgescheduler.html).
  // Every function is told whether its role has it (A2_ERASE), so an erase
  // without it fails before its first request instead of half-way.
  const eraseGranted = props.erase === true
  for (const [name, fn] of Object.entries(functions)) {
    const lane = (QUEUE_LANES as readonly string[]).includes(name)
    fn.addEnvironment(ENVIRONMENT_VARIABLES.erase, eraseGranted && lane ? 'granted' : 'not-granted')
  }
  if (eraseGranted) {
    for (const lane of QUEUE_LANES) {
      const laneFunction = functions[lane]
      laneFunction.addToRolePolicy(
        new iam.PolicyStatement({ actions: ['scheduler:ListSchedules'], resources: ['*'] }),
      )
      laneFunction.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['scheduler:DeleteSchedule'],
          resources: [scheduleArn],
        }),
      )
      laneFunction.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'],
          resources: [parts.table.tableArn],
        }),
      )
    }
  }

  return { scheduleArn, agentFunctions, eraseGranted }
}
