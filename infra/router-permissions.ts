import { Duration } from 'aws-cdk-lib'
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb'
import * as iam from 'aws-cdk-lib/aws-iam'
import * as lambda from 'aws-cdk-lib/aws-lambda'
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources'
import type * as sqs from 'aws-cdk-lib/aws-sqs'
import { QUEUE_LANES, type QueueLane, ROUTER_STREAM } from '../shared/aws/pipeline-functions.ts'
import { ROUTER_FILTER_PATTERN, ROUTER_FILTER_PATTERNS } from '../shared/aws/stream-filter.ts'
import type { A2AgentProps } from './a2-agent-props.ts'
import type { AgentFunctions } from './agent-functions.ts'

/** The router's stream source, its sends to the lanes, and what retention lets it delete. */
export function grantRouterPermissions(
  props: Pick<A2AgentProps, 'retention'>,
  parts: {
    table: dynamodb.Table
    functions: AgentFunctions
    laneQueues: Record<QueueLane, sqs.Queue>
    routerFailureQueue: sqs.Queue
  },
): void {
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
    // (as the appenders' heal, log-permissions.ts): never a lone DeleteItem.
    functions.router.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:ConditionCheckItem', 'dynamodb:DeleteItem'],
        resources: [parts.table.tableArn],
        conditions: { StringEquals: { 'dynamodb:EnclosingOperation': 'TransactWriteItems' } },
      }),
    )
  }
}
