import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb'
import * as iam from 'aws-cdk-lib/aws-iam'
import type * as lambda from 'aws-cdk-lib/aws-lambda'
import type * as sqs from 'aws-cdk-lib/aws-sqs'
import {
  QUEUE_FUNCTION_NAMES,
  QUEUE_LANES,
  type QueueLane,
} from '../shared/aws/pipeline-functions.ts'
import type { A2AgentProps } from './a2-agent-props.ts'
import type { AgentFunctions } from './agent-functions.ts'

/** What every function that reads the log may do on the table. */
const TABLE_READS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'] as const

/**
 * The table and the lane queues for the functions that append (the HTTP
 * POST function and the queue functions) and for the one that only reads
 * (the GET stream function). Answers the functions that carry the agent's
 * bundle.
 */
export function grantLogPermissions(
  props: Pick<A2AgentProps, 'retention'>,
  parts: {
    table: dynamodb.Table
    functions: AgentFunctions
    laneQueues: Record<QueueLane, sqs.Queue>
  },
): lambda.IFunction[] {
  const { functions } = parts
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
  return agentFunctions
}
