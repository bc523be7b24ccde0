import { randomUUID } from 'node:crypto'
import { BatchWriteItemCommand, DeleteItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb'
import { describe, expect, it } from 'vitest'
import type { NewEvent } from '../../../../shared/index.ts'
import { dynamoDBEventStore } from '../../../../shared/stores/dynamodb/dynamodb-event-store.ts'
import {
  HEAD_SK,
  PK,
  SK,
  sessionItemKey,
  sessionPk,
} from '../../../../shared/stores/dynamodb/table-keys.ts'
import { eventLogTableForSuite } from '../../../support/aws.ts'

// A session's lives where only the DynamoDB store can be caught out: what
// one instance remembers (its hints of where the log ends and in which life)
// against what DynamoDB's TTL does on its own, a week or a retention period
// later. The store-wide rules are the conformance suite's (lives.ts).

const table = eventLogTableForSuite()
const note = (id: string = randomUUID()): NewEvent => ({ id, type: 'note.added', payload: {} })

async function partition(sessionId: string) {
  const { Items = [] } = await table.client().send(
    new QueryCommand({
      TableName: table.tableName(),
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': PK },
      ExpressionAttributeValues: { ':pk': { S: sessionPk(sessionId) } },
      ConsistentRead: true,
    }),
  )
  return Items
}

describe('DynamoDB store: lives against what TTL deletes', () => {
  it('appends at the end of a life started over after retention took the head, with no hole: [1, 2, 3]', async () => {
    const store = () => dynamoDBEventStore({ client: table.client(), tableName: table.tableName() })
    const [a, b] = [store(), store()]
    const s = `retained-${randomUUID()}`
    for (let i = 0; i < 5; i++) await a.append(s, [note()])
    expect(await a.head(s)).toBe(5)
    // Retention: DynamoDB's TTL deleted the idle session's head, and the
    // leftovers wait for the sweep; another instance starts the session over.
    await table
      .client()
      .send(
        new DeleteItemCommand({ TableName: table.tableName(), Key: sessionItemKey(s, HEAD_SK) }),
      )
    await b.append(s, [note()])
    await b.append(s, [note()])
    const { events } = await a.append(s, [note('from the instance that saw 5')])
    expect(events[0]).toMatchObject({ id: 'from the instance that saw 5', index: 3 })
    const life = events[0]?.life
    for (const reader of [a, b, store()]) {
      const log = await reader.read(s)
      expect(log.map((event) => event.index)).toEqual([1, 2, 3])
      expect(new Set(log.map((event) => event.life))).toEqual(new Set([life]))
      expect(await reader.head(s)).toBe(3)
    }
  })

  it("writes no progress of a frozen process's ended life, even once the erase's tombstones expired", async () => {
    let clock = Date.now()
    const frozen = dynamoDBEventStore({
      client: table.client(),
      tableName: table.tableName(),
      now: () => clock,
    })
    const other = dynamoDBEventStore({ client: table.client(), tableName: table.tableName() })
    const s = `frozen-${randomUUID()}`
    const opening = await frozen.append(s, [note()])
    const life = opening.events[0]?.life as string
    const progress = (n: number) => ({
      id: `old-progress-${n}`,
      type: 'ai.generation.progress',
      payload: { secret: 'of the erased life' },
    })
    for (let index = 1; index < 4; index++) {
      await frozen.append(s, [progress(index)], {
        expectedIndex: index,
        guardIds: false,
        progress: true,
        life,
      })
    }
    // Erased and started over elsewhere, shorter; a week later TTL took the
    // tombstones, and the frozen process wakes up where it left off.
    await other.erase(s)
    await other.append(s, [note(), note()])
    const tombstones = (await partition(s)).filter((item) => item.erased !== undefined)
    expect(tombstones.length).toBeGreaterThan(0)
    await table.client().send(
      new BatchWriteItemCommand({
        RequestItems: {
          [table.tableName()]: tombstones.map((item) => ({
            DeleteRequest: { Key: { [PK]: item[PK] as never, [SK]: item[SK] as never } },
          })),
        },
      }),
    )
    clock += 7 * 24 * 3600_000
    for (const options of [{ life }, {}]) {
      const error = await frozen
        .append(s, [progress(4)], {
          expectedIndex: 4,
          guardIds: false,
          progress: true,
          ...options,
        })
        .catch((e) => e)
      expect(error).toMatchObject({ code: options.life ? 'LIFE_ENDED' : 'APPEND_CONFLICT' })
    }
    // Nothing of the ended life is in the partition, and the new one reads whole.
    expect((await partition(s)).filter((item) => item.id?.S?.startsWith('old-'))).toEqual([])
    expect((await other.read(s)).map((event) => event.index)).toEqual([1, 2])
    expect((await other.append(s, [note()])).events[0]).toMatchObject({ index: 3 })
  })
})
