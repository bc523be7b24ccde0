import { describe, expect, it } from 'vitest'
import { appendTransaction } from '../../../../shared/stores/dynamodb/append-transaction.ts'
import {
  itemBytes,
  putWriteUnits,
  transactionWriteUnits,
} from '../../../../shared/stores/dynamodb/write-units.ts'

const append = (
  payload: unknown,
  options: Parameters<typeof appendTransaction>[0]['options'] = {},
  base = 4,
) =>
  appendTransaction({
    tableName: 'events',
    sessionId: 's1',
    base,
    life: 'L1',
    events: [{ id: 'e1', type: 'note.added', payload }],
    contents: ['c1'],
    timestamp: 1_000,
    options,
  })

describe("an append's write units, as DynamoDB bills its transaction", () => {
  it('counts a small guarded event as guard, head and event, each twice in a transaction: 6', () => {
    expect(transactionWriteUnits(append({ text: 'hi' }).items)).toBe(6)
  })

  it('counts streamed progress (no guard, no fence) as head and event: 4, half of a guarded, fenced one', () => {
    const unguarded = append({ text: 'hi' }, { guardIds: false, expectedIndex: 4 })
    const fenced = append({ text: 'hi' }, { fence: { claim: 'gen:r1', attempt: 1 } })
    expect(transactionWriteUnits(unguarded.items)).toBe(4)
    expect(transactionWriteUnits(fenced.items)).toBe(8)
  })

  it("counts a step's progress written alone, one PutItem of its event, as 1 unit per KB begun", () => {
    const small = append({ text: 'hi' }, { guardIds: false, expectedIndex: 4 })
    const event = (at: typeof small) => at.items[at.positions.events]?.Put?.Item ?? {}
    expect(putWriteUnits(event(small))).toBe(1)
    const large = append({ text: 'x'.repeat(2_500) }, { guardIds: false, expectedIndex: 4 })
    expect(putWriteUnits(event(large))).toBe(3)
  })

  it('bills an event item per KB begun', () => {
    const large = append({ text: 'x'.repeat(2_500) })
    const event = large.items.find((item) => item.Put?.Item?.t)?.Put?.Item ?? {}
    const eventUnits = Math.ceil(itemBytes(event) / 1024)
    expect(eventUnits).toBe(3)
    expect(transactionWriteUnits(large.items)).toBe(2 + 2 + 2 * eventUnits)
  })

  it('sizes an item as DynamoDB does: names plus values, numbers by their digits', () => {
    expect(itemBytes({ pk: { S: 'S#s1' }, n: { N: '12345' }, ok: { BOOL: true } })).toBe(
      2 + 4 + 1 + 4 + 2 + 1,
    )
  })
})
