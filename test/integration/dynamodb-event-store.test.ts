import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb'
import { describe, expect, it } from 'vitest'
import { dynamoDBEventStore } from '../../shared/stores/dynamodb/dynamodb-event-store.ts'
import {
  CLAIM_ITEM_RETENTION_SECONDS,
  claimSk,
  PK,
  SK,
  sessionPk,
  snapshotSk,
  TTL_ATTRIBUTE,
} from '../../shared/stores/dynamodb/table-keys.ts'
import { describeEventStoreConformance } from '../conformance/event-store.conformance.ts'
import { eventLogTableForSuite } from '../support/aws.ts'

const table = eventLogTableForSuite()

describeEventStoreConformance('DynamoDB store', () => ({
  store: dynamoDBEventStore({ client: table.client(), tableName: table.tableName() }),
  async corruptSnapshot(sessionId, reducerName) {
    await table.client().send(
      new PutItemCommand({
        TableName: table.tableName(),
        Item: {
          [PK]: { S: sessionPk(sessionId) },
          [SK]: { S: snapshotSk(reducerName) },
          i: { N: '2' },
          pz: { B: new Uint8Array([1, 2, 3, 4]) },
        },
      }),
    )
  },
}))

describe('DynamoDB store claim items', () => {
  const ttlOf = async (sessionId: string, key: string): Promise<number> => {
    const { Item } = await table.client().send(
      new GetItemCommand({
        TableName: table.tableName(),
        Key: { [PK]: { S: sessionPk(sessionId) }, [SK]: { S: claimSk(key) } },
        ConsistentRead: true,
      }),
    )
    return Number(Item?.[TTL_ATTRIBUTE]?.N)
  }

  it("expire through the table's TTL attribute, in epoch seconds, a week after their claim ends", async () => {
    const store = dynamoDBEventStore({ client: table.client(), tableName: table.tableName() })
    const seconds = () => Date.now() / 1000
    const claim = await store.claim('ttl-session', 'tool:c1', { ttlMs: 30_000 })
    const week = CLAIM_ITEM_RETENTION_SECONDS
    // Seconds, not milliseconds: DynamoDB would never expire a millisecond value.
    expect(await ttlOf('ttl-session', 'tool:c1')).toBeGreaterThanOrEqual(seconds() + 29 + week)
    expect(await ttlOf('ttl-session', 'tool:c1')).toBeLessThanOrEqual(seconds() + 31 + week)
    await store.renewClaim('ttl-session', claim, { ttlMs: 120_000 })
    expect(await ttlOf('ttl-session', 'tool:c1')).toBeGreaterThanOrEqual(seconds() + 119 + week)
    await store.releaseClaim('ttl-session', { ...claim, expiresAt: Date.now() + 120_000 })
    expect(await ttlOf('ttl-session', 'tool:c1')).toBeLessThanOrEqual(seconds() + 1 + week)
    await store.revokeClaim('ttl-session', 'tool:c2')
    expect(await ttlOf('ttl-session', 'tool:c2')).toBeGreaterThanOrEqual(seconds() - 1 + week)
    // The claim itself still works in milliseconds.
    expect((await store.readClaim('ttl-session', 'tool:c1'))?.attempt).toBe(1)
  })
})
