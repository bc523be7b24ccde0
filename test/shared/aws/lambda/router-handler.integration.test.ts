import {
  BatchGetItemCommand,
  DeleteItemCommand,
  type DynamoDBClient,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb'
import type { SQSClient } from '@aws-sdk/client-sqs'
import type { DynamoDBRecord } from 'aws-lambda'
import { describe, expect, it } from 'vitest'
import { agent } from '../../../../shared/agent/index.ts'
import { inputs } from '../../../../shared/ai.ts'
import type { PipelineAgent } from '../../../../shared/aws/lambda/pipeline-agent.ts'
import { routerHandler } from '../../../../shared/aws/lambda/router-handler.ts'
import { dynamoDBEventStore } from '../../../../shared/stores/dynamodb/dynamodb-event-store.ts'
import {
  GUARD_SK,
  guardPk,
  HEAD_SK,
  itemKey,
  sessionItemKey,
  sessionPk,
} from '../../../../shared/stores/dynamodb/table-keys.ts'
import { scriptedModel, text } from '../../../../shared/testing/scripted-model.ts'
import { track, userMessage } from '../../../support/agent-log.ts'
import { eventLogTableForSuite } from '../../../support/aws.ts'
import { silent } from '../../../support/pipeline-fixture.ts'

const table = eventLogTableForSuite()
const store = () => dynamoDBEventStore({ client: table.client(), tableName: table.tableName() })

/** A session with a finished turn: events, head, claims, ID guards. */
async function conversation(sessionId: string): Promise<PipelineAgent> {
  const a = track(
    agent({
      name: 'retained',
      store: store(),
      retention: '30d',
      model: scriptedModel([text('Your refund is on its way.')]).model,
    }),
  )
  await a.session(sessionId).append(...inputs.message(userMessage('m1', 'Where is my refund?')))
  await a.runtime.idle()
  return a as unknown as PipelineAgent
}

/** The sort keys of the session's partition, and how many of its events' ID guards exist. */
async function itemsOf(sessionId: string, eventIds: readonly string[]) {
  const { Items = [] } = await table.client().send(
    new QueryCommand({
      TableName: table.tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: sessionPk(sessionId) } },
      ConsistentRead: true,
    }),
  )
  const guards =
    eventIds.length === 0
      ? []
      : ((
          await table.client().send(
            new BatchGetItemCommand({
              RequestItems: {
                [table.tableName()]: {
                  Keys: eventIds.map((id) => itemKey(guardPk(id), GUARD_SK)),
                  ConsistentRead: true,
                },
              },
            }),
          )
        ).Responses?.[table.tableName()] ?? [])
  return { sortKeys: Items.map((item) => item.sk?.S as string), guards: guards.length }
}

/** What DynamoDB's TTL does: it deletes the head item alone. */
async function expireHead(sessionId: string): Promise<void> {
  await table.client().send(
    new DeleteItemCommand({
      TableName: table.tableName(),
      Key: sessionItemKey(sessionId, HEAD_SK),
    }),
  )
}

/**
 * The stream record of that delete as Lambda delivers it: a REMOVE with the
 * item's keys (the table's view type is NEW_IMAGE, so no image) and the
 * DynamoDB service as its user. moto neither runs TTL nor marks records so.
 */
function ttlRemoveRecord(sessionId: string): DynamoDBRecord {
  return {
    eventID: `ttl-${sessionId}`,
    eventName: 'REMOVE',
    eventSource: 'aws:dynamodb',
    userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' },
    dynamodb: {
      SequenceNumber: '100',
      Keys: { pk: { S: sessionPk(sessionId) }, sk: { S: HEAD_SK } },
    },
  }
}

function router(a: PipelineAgent, client: DynamoDBClient = table.client()) {
  return routerHandler(
    a,
    {
      client: {} as SQSClient,
      queueUrls: { admission: 'a', generation: 'g', tools: 't', handlers: 'h' },
    },
    { client, tableName: table.tableName() },
    silent,
  )
}

describe('retention: the router erases what an expired session left', () => {
  it('erases every item of a session whose head TTL deleted (events, snapshots, claims, ID guards), and again is a no-op', async () => {
    const a = await conversation('expired')
    const events = await store().read('expired')
    await store().writeSnapshot('expired', 'ai', { index: 1, state: {}, life: events[0]?.life })
    const eventIds = events.map((event) => event.id)
    const before = await itemsOf('expired', eventIds)
    expect(before.sortKeys.some((sk) => sk.startsWith('E#'))).toBe(true)
    expect(before.sortKeys.some((sk) => sk.startsWith('K#'))).toBe(true)
    expect(before.sortKeys).toContain('R#ai')
    expect(before.guards).toBeGreaterThan(0)

    await expireHead('expired')
    const record = ttlRemoveRecord('expired')
    expect(await router(a)({ Records: [record] })).toEqual({ batchItemFailures: [] })
    expect(await itemsOf('expired', eventIds)).toEqual({ sortKeys: [], guards: 0 })
    // At least once: the same record again finds nothing to erase.
    expect(await router(a)({ Records: [record] })).toEqual({ batchItemFailures: [] })
    expect(await itemsOf('expired', eventIds)).toEqual({ sortKeys: [], guards: 0 })
  })

  it('leaves a session alone that has a head again by the time the record arrives', async () => {
    const a = await conversation('recreated')
    await expireHead('recreated')
    // The user came back: the append sweeps the leftovers and starts the log over.
    await store().append('recreated', [{ id: 'again', type: 'note', payload: {} }])
    const before = await itemsOf('recreated', ['again'])
    expect(before.sortKeys).toContain(HEAD_SK)

    await router(a)({ Records: [ttlRemoveRecord('recreated')] })
    expect(await itemsOf('recreated', ['again'])).toEqual(before)
    expect((await store().read('recreated')).map((event) => event.id)).toEqual(['again'])
  })

  it('deletes nothing more once a head appears while it erases (each batch checks the head is absent)', async () => {
    const a = await conversation('raced')
    const eventIds = (await store().read('raced')).map((event) => event.id)
    await expireHead('raced')
    const before = await itemsOf('raced', eventIds)
    // A head lands between the router's read of the partition and its deletes.
    const real = table.client()
    let landed = false
    const racing = {
      send: async (command: { constructor: unknown }) => {
        if (command instanceof TransactWriteItemsCommand && !landed) {
          landed = true
          await real.send(
            new PutItemCommand({
              TableName: table.tableName(),
              Item: { ...sessionItemKey('raced', HEAD_SK), lastIndex: { N: '1' } },
            }),
          )
        }
        return real.send(command as never)
      },
    } as unknown as DynamoDBClient

    expect(await router(a, racing)({ Records: [ttlRemoveRecord('raced')] })).toEqual({
      batchItemFailures: [],
    })
    expect(landed).toBe(true)
    const after = await itemsOf('raced', eventIds)
    expect(after.sortKeys).toEqual([...before.sortKeys, HEAD_SK].sort())
    expect(after.guards).toBe(before.guards)
  })
})
