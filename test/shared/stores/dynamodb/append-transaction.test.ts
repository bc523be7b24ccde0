import type { CancellationReason, TransactionCanceledException } from '@aws-sdk/client-dynamodb'
import { describe, expect, it } from 'vitest'
import {
  appendCancellation,
  appendTransaction,
} from '../../../../shared/stores/dynamodb/append-transaction.ts'
import { sessionItemKey } from '../../../../shared/stores/dynamodb/table-keys.ts'

const events = [
  { id: 'e1', type: 'note.added', payload: { text: 'a' } },
  { id: 'e2', type: 'note.added', payload: { text: 'b' } },
]
const transaction = appendTransaction({
  tableName: 'events',
  sessionId: 's1',
  base: 4,
  life: 'L1',
  events,
  contents: ['c1', 'c2'],
  timestamp: 1_000,
  options: { cursor: { name: 'h', from: 3, to: 6 }, fence: { claim: 'gen:r1', attempt: 2 } },
})
const cancelled = (
  codes: Record<number, string>,
  head?: string,
): ReturnType<typeof appendCancellation> => {
  const reasons: CancellationReason[] = transaction.items.map((_, position) => ({
    Code: codes[position] ?? 'None',
    ...(position === transaction.positions.head && head
      ? { Item: { lastIndex: { N: head }, life: { S: 'L2' } } }
      : {}),
  }))
  const error = { CancellationReasons: reasons } as TransactionCanceledException
  return appendCancellation(error, transaction)
}

describe('an append transaction', () => {
  it('puts the guards first, then the head, the events, the cursor and the fence, and says where each is', () => {
    expect(transaction.items.map((item) => Object.keys(item)[0])).toEqual([
      'Put',
      'Put',
      'Update',
      'Put',
      'Put',
      'Update',
      'ConditionCheck',
    ])
    expect(transaction.positions).toEqual({
      guards: 2,
      head: 2,
      gap: -1,
      events: 3,
      cursor: 5,
      fence: 6,
    })
    expect(transaction.items[2]?.Update?.Key).toEqual(sessionItemKey('s1', '#HEAD'))
    expect(transaction.stored.map((event) => event.index)).toEqual([5, 6])
  })

  it('with guardIds: false, writes no guards: the head and the events alone (a progress append: 2 items, 4 WRU)', () => {
    const unguarded = appendTransaction({
      tableName: 'events',
      sessionId: 's1',
      base: 4,
      life: 'L1',
      events: events.slice(0, 1),
      contents: ['c1'],
      timestamp: 1_000,
      options: { expectedIndex: 4, guardIds: false },
    })
    expect(unguarded.items.map((item) => Object.keys(item)[0])).toEqual(['Update', 'Put'])
    expect(unguarded.positions).toEqual({
      guards: 0,
      head: 0,
      gap: -1,
      events: 1,
      cursor: -1,
      fence: -1,
    })
    const error = {
      CancellationReasons: [
        { Code: 'ConditionalCheckFailed', Item: { lastIndex: { N: '7' } } },
        { Code: 'None' },
      ],
    } as TransactionCanceledException
    // A head written before lives holds none: life ''.
    expect(appendCancellation(error, unguarded)).toEqual({
      reason: 'head-moved',
      reportedHead: { index: 7, life: '' },
      guardsPassed: true,
    })
  })

  it('reads its cancellation reasons in item order, a taken ID first', () => {
    const failed = 'ConditionalCheckFailed'
    expect(cancelled({ 1: failed, 6: failed })).toEqual({ reason: 'resubmission' })
    expect(cancelled({ 6: failed, 5: failed })).toEqual({ reason: 'fenced' })
    expect(cancelled({ 5: failed })).toEqual({ reason: 'cursor-moved' })
    expect(cancelled({ 3: 'TransactionConflict' })).toEqual({ reason: 'raced' })
    expect(cancelled({ 2: failed }, '9')).toEqual({
      reason: 'head-moved',
      reportedHead: { index: 9, life: 'L2' },
      guardsPassed: true,
    })
    expect(cancelled({ 0: '', 1: '', 2: failed })).toMatchObject({
      reason: 'head-moved',
      reportedHead: undefined,
      guardsPassed: false,
    })
    expect(cancelled({ 3: 'ThrottlingError' })).toEqual({ reason: 'unexplained' })
  })

  it("writes an event over nothing or over an erase's tombstone, never over an event", () => {
    const put = transaction.items[transaction.positions.events]?.Put
    expect(put?.ConditionExpression).toBe('attribute_not_exists(#pk) OR attribute_exists(#erased)')
    expect(put?.ExpressionAttributeNames).toEqual({ '#pk': 'pk', '#erased': 'erased' })
  })

  it('conditions the head on the index its item holds, and checks the event at base, when progress moved the log past the item', () => {
    const behind = appendTransaction({
      tableName: 'events',
      sessionId: 's1',
      base: 9,
      life: 'L1',
      headItem: 4,
      events,
      contents: ['c1', 'c2'],
      timestamp: 1_000,
      options: { fence: { claim: 'gen:r1', attempt: 2 } },
    })
    expect(behind.items.map((item) => Object.keys(item)[0])).toEqual([
      'Put',
      'Put',
      'Update',
      'ConditionCheck',
      'Put',
      'Put',
      'ConditionCheck',
    ])
    expect(behind.positions).toMatchObject({ head: 2, gap: 3, events: 4, fence: 6 })
    const update = behind.items[2]?.Update
    expect(update?.ConditionExpression).toBe('lastIndex = :base AND #life = :life')
    expect(update?.ExpressionAttributeValues?.[':base']).toEqual({ N: '4' })
    expect(update?.ExpressionAttributeValues?.[':life']).toEqual({ S: 'L1' })
    expect(update?.ExpressionAttributeValues?.[':last']).toEqual({ N: '11' })
    const gap = behind.items[3]?.ConditionCheck
    expect(gap?.Key).toEqual(sessionItemKey('s1', 'E#000000000009'))
    // An event of the life, or one a2-aws wrote before lives (under this head, of its life).
    expect(gap?.ConditionExpression).toBe(
      'attribute_exists(#pk) AND attribute_not_exists(#erased) AND (#l = :life OR attribute_not_exists(#l))',
    )
    expect(behind.stored.map((event) => event.index)).toEqual([10, 11])
    const reasons = (codes: Record<number, string>) =>
      appendCancellation(
        {
          CancellationReasons: behind.items.map((_, position) => ({
            Code: codes[position] ?? 'None',
          })),
        } as TransactionCanceledException,
        behind,
      )
    // A writer that saw the event at 9 needs no check.
    const seen = appendTransaction({
      tableName: 'events',
      sessionId: 's1',
      base: 9,
      life: 'L1',
      headItem: 4,
      baseSeen: true,
      events,
      contents: ['c1', 'c2'],
      timestamp: 1_000,
      options: {},
    })
    expect(seen.positions.gap).toBe(-1)
    expect(seen.items[2]?.Update?.ExpressionAttributeValues?.[':base']).toEqual({ N: '4' })
    // The log does not reach 9, or it is past it.
    expect(reasons({ 3: 'ConditionalCheckFailed' })).toEqual({ reason: 'gap' })
    expect(reasons({ 5: 'ConditionalCheckFailed' })).toEqual({ reason: 'index-taken' })
  })

  it("starts a life with the session's first append: the head written only where there is none, with the life, and each event with it", () => {
    const first = appendTransaction({
      tableName: 'events',
      sessionId: 's1',
      base: 0,
      life: 'L9',
      events,
      contents: ['c1', 'c2'],
      timestamp: 1_000,
      options: {},
    })
    const update = first.items[first.positions.head]?.Update
    expect(update?.ConditionExpression).toBe('attribute_not_exists(#pk)')
    expect(update?.UpdateExpression).toContain('#life = :life')
    expect(update?.ExpressionAttributeNames).toMatchObject({ '#pk': 'pk', '#life': 'life' })
    expect(update?.ExpressionAttributeValues?.[':life']).toEqual({ S: 'L9' })
    const put = first.items[first.positions.events]?.Put
    expect(put?.Item?.l).toEqual({ S: 'L9' })
    expect(first.stored.map((event) => event.life)).toEqual(['L9', 'L9'])
  })

  it('appends to a session written before lives as it is: its head conditioned on having no life, its events without one', () => {
    const legacy = appendTransaction({
      tableName: 'events',
      sessionId: 's1',
      base: 4,
      life: '',
      events,
      contents: ['c1', 'c2'],
      timestamp: 1_000,
      options: {},
    })
    const update = legacy.items[legacy.positions.head]?.Update
    expect(update?.ConditionExpression).toBe('lastIndex = :base AND attribute_not_exists(#life)')
    expect(update?.UpdateExpression).not.toContain(':life')
    expect(legacy.items[legacy.positions.events]?.Put?.Item?.l).toBeUndefined()
  })
})

describe("an event item's schema version", () => {
  it('is a short attribute `v`, written only above 1', () => {
    const { items, positions } = appendTransaction({
      tableName: 'events',
      sessionId: 's1',
      base: 0,
      life: 'L1',
      events: [
        { id: 'e1', type: 'plan.changed', payload: {}, version: 2 },
        { id: 'e2', type: 'plan.changed', payload: {}, version: 1 },
        { id: 'e3', type: 'plan.changed', payload: {} },
      ],
      contents: ['c1', 'c2', 'c3'],
      timestamp: 1_000,
      options: {},
    })
    const eventItems = items.slice(positions.events, positions.events + 3)
    expect(eventItems.map((item) => item.Put?.Item?.v)).toEqual([{ N: '2' }, undefined, undefined])
  })
})
