import { describe, expect, it } from 'vitest'
import { dynamoDBEventStore } from '../../../../shared/stores/dynamodb/dynamodb-event-store.ts'
import { sessionIdsOf } from '../../../../shared/stores/dynamodb/session-scan.ts'
import { eventLogTableForSuite } from '../../../support/aws.ts'

const table = eventLogTableForSuite()

describe('sessionIdsOf on DynamoDB', () => {
  it("finds the table's sessions by their heads: not an erased one, not a snapshot, claim or guard item", async () => {
    const store = dynamoDBEventStore({ client: table.client(), tableName: table.tableName() })
    for (const id of ['a', 'b', 'c']) {
      await store.append(id, [{ id: `n-${id}`, type: 'note.added', payload: {} }])
    }
    await store.writeSnapshot('a', 'counter.v1', { index: 1, state: 1 })
    await store.erase('b')
    const ids = await sessionIdsOf(table.client(), table.tableName(), { limit: 10 })
    expect(ids.sort()).toEqual(['a', 'c'])
    expect(await sessionIdsOf(table.client(), table.tableName(), { limit: 1 })).toHaveLength(1)
  })
})
