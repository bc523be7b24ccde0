import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb'
import {
  DeleteScheduleCommand,
  ListSchedulesCommand,
  type SchedulerClient,
} from '@aws-sdk/client-scheduler'
import { sessionSchedulePrefix } from '../../../shared/aws/eventbridge-scheduler.ts'
import { OPERATOR_TABLE_ACTIONS } from '../../../shared/aws/operator-policy.ts'
import { PK, SK, sessionItemKey, sessionPk } from '../../../shared/stores/dynamodb/table-keys.ts'

/**
 * The sort key of the probe's item, in the session's own partition (so a
 * policy scoped by `dynamodb:LeadingKeys` is probed as the command will
 * use it): no writer ever stores it, and every probe write is conditioned
 * never to store it either.
 */
const PROBE_SK = 'a2.grant-probe'
/** A condition no item meets, present or absent: the write is authorized, then refused. */
const NEVER = {
  ConditionExpression: 'attribute_exists(#pk) AND attribute_not_exists(#pk)',
  ExpressionAttributeNames: { '#pk': PK },
}

/** Where a command writes: its table (and client), the session, and for erase its schedule group. */
export interface GrantProbeTarget {
  dynamodb: Pick<DynamoDBClient, 'send'>
  tableName: string
  sessionId: string
  /** Erase's `--schedule-group`, with the Scheduler client to probe it. */
  schedules?: { scheduler: Pick<SchedulerClient, 'send'>; groupName: string }
}

interface Probe {
  action: string
  /** Answers normally, or with one of `allowed` (what an authorized request meets). */
  send: () => Promise<unknown>
  allowed: readonly string[]
}

/**
 * The actions of `command` the caller may not perform, found by asking
 * for each with a request that cannot change anything: every write carries
 * a condition no item meets (AWS authorizes a request before it evaluates
 * its condition, so an authorized write answers
 * ConditionalCheckFailedException or a cancelled transaction, and a
 * refused one AccessDeniedException), a BatchWriteItem deletes the probe
 * item, which never exists (BatchWriteItem takes no condition; deleting
 * nothing writes nothing, and leaves no stream record), a DeleteSchedule
 * names a schedule no timer has. An empty answer: every action is granted.
 *
 * Why a probe and not `iam simulate-principal-policy`: the probe meets
 * everything AWS applies to the real request (service control policies,
 * permission boundaries, session policies, resource conditions such as
 * `dynamodb:LeadingKeys`), needs no IAM permission of its own, works for
 * an assumed role's session as for a user, and runs the same against moto
 * or DynamoDB Local, which check no IAM and answer every probe as allowed.
 * It costs a few write units.
 *
 * @example
 * const denied = await deniedActions('erase', { dynamodb, tableName, sessionId })
 */
export async function deniedActions(
  command: 'erase' | 'import',
  target: GrantProbeTarget,
): Promise<string[]> {
  const denied: string[] = []
  for (const probe of probes(command, target)) {
    try {
      await probe.send()
    } catch (error) {
      const name = error instanceof Error ? error.name : undefined
      if (name === 'AccessDeniedException') denied.push(probe.action)
      else if (name === undefined || !probe.allowed.includes(name)) throw error
    }
  }
  return denied
}

function probes(command: 'erase' | 'import', target: GrantProbeTarget): Probe[] {
  const { dynamodb, tableName: TableName, sessionId } = target
  const Key = sessionItemKey(sessionId, PROBE_SK)
  const conditionFailed = ['ConditionalCheckFailedException']
  const cancelled = ['TransactionCanceledException']
  const transaction = (item: Record<string, unknown>) => () =>
    dynamodb.send(new TransactWriteItemsCommand({ TransactItems: [item] }))
  const table: Record<string, Probe> = {
    'dynamodb:GetItem': {
      action: 'dynamodb:GetItem',
      send: () => dynamodb.send(new GetItemCommand({ TableName, Key })),
      allowed: [],
    },
    'dynamodb:Query': {
      action: 'dynamodb:Query',
      send: () =>
        dynamodb.send(
          new QueryCommand({
            TableName,
            KeyConditionExpression: '#pk = :pk AND #sk = :sk',
            ExpressionAttributeNames: { '#pk': PK, '#sk': SK },
            ExpressionAttributeValues: {
              ':pk': { S: sessionPk(sessionId) },
              ':sk': { S: PROBE_SK },
            },
          }),
        ),
      allowed: [],
    },
    'dynamodb:BatchGetItem': {
      action: 'dynamodb:BatchGetItem',
      send: () =>
        dynamodb.send(new BatchGetItemCommand({ RequestItems: { [TableName]: { Keys: [Key] } } })),
      allowed: [],
    },
    'dynamodb:PutItem': {
      action: 'dynamodb:PutItem',
      send: () => dynamodb.send(new PutItemCommand({ TableName, Item: Key, ...NEVER })),
      allowed: conditionFailed,
    },
    'dynamodb:DeleteItem': {
      action: 'dynamodb:DeleteItem',
      send: () => dynamodb.send(new DeleteItemCommand({ TableName, Key, ...NEVER })),
      allowed: conditionFailed,
    },
    'dynamodb:BatchWriteItem': {
      action: 'dynamodb:BatchWriteItem',
      send: () =>
        dynamodb.send(
          new BatchWriteItemCommand({
            RequestItems: { [TableName]: [{ DeleteRequest: { Key } }] },
          }),
        ),
      allowed: [],
    },
    'dynamodb:UpdateItem': {
      action: 'dynamodb:UpdateItem',
      // In a transaction, as an append updates the head.
      send: transaction({
        Update: { TableName, Key, UpdateExpression: 'SET #probe = :probe', ...probeValues() },
      }),
      allowed: cancelled,
    },
    'dynamodb:ConditionCheckItem': {
      action: 'dynamodb:ConditionCheckItem',
      send: transaction({ ConditionCheck: { TableName, Key, ...NEVER } }),
      allowed: cancelled,
    },
  }
  const checks = OPERATOR_TABLE_ACTIONS[command].map((action) => table[action] as Probe)
  if (command === 'import') {
    // Its appends put inside transactions too.
    checks.push({
      action: 'dynamodb:PutItem (in TransactWriteItems)',
      send: transaction({ Put: { TableName, Item: Key, ...NEVER } }),
      allowed: cancelled,
    })
  } else {
    // What lands after the head's delete goes in transactions of Deletes.
    checks.push({
      action: 'dynamodb:DeleteItem (in TransactWriteItems)',
      send: transaction({ Delete: { TableName, Key, ...NEVER } }),
      allowed: cancelled,
    })
  }
  const schedules = target.schedules
  if (command === 'erase' && schedules) {
    const { scheduler, groupName } = schedules
    const prefix = sessionSchedulePrefix(sessionId)
    checks.push(
      {
        action: 'scheduler:ListSchedules',
        send: () =>
          scheduler.send(
            new ListSchedulesCommand({ GroupName: groupName, NamePrefix: prefix, MaxResults: 1 }),
          ),
        allowed: [],
      },
      {
        action: 'scheduler:DeleteSchedule',
        // Not hex: no timer's schedule is named so.
        send: () =>
          scheduler.send(
            new DeleteScheduleCommand({ GroupName: groupName, Name: `${prefix}grant-probe` }),
          ),
        allowed: ['ResourceNotFoundException'],
      },
    )
  }
  return checks
}

/** An update's expression values and a condition no item meets. */
function probeValues() {
  return {
    ConditionExpression: NEVER.ConditionExpression,
    ExpressionAttributeNames: { ...NEVER.ExpressionAttributeNames, '#probe': 'probe' },
    ExpressionAttributeValues: { ':probe': { BOOL: true } },
  }
}
