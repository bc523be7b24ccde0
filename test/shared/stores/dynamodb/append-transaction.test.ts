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
      ? { Item: { lastIndex: { N: head } } }
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
    expect(transaction.positions).toEqual({ guards: 2, head: 2, cursor: 5, fence: 6 })
    expect(transaction.items[2]?.Update?.Key).toEqual(sessionItemKey('s1', '#HEAD'))
    expect(transaction.stored.map((event) => event.index)).toEqual([5, 6])
  })

  it('with guardIds: false, writes no guards: the head and the events alone (a progress append: 2 items, 4 WRU)', () => {
    const unguarded = appendTransaction({
      tableName: 'events',
      sessionId: 's1',
      base: 4,
      events: events.slice(0, 1),
      contents: ['c1'],
      timestamp: 1_000,
      options: { expectedIndex: 4, guardIds: false },
    })
    expect(unguarded.items.map((item) => Object.keys(item)[0])).toEqual(['Update', 'Put'])
    expect(unguarded.positions).toEqual({ guards: 0, head: 0, cursor: -1, fence: -1 })
    const error = {
      CancellationReasons: [
        { Code: 'ConditionalCheckFailed', Item: { lastIndex: { N: '7' } } },
        { Code: 'None' },
      ],
    } as TransactionCanceledException
    expect(appendCancellation(error, unguarded)).toEqual({
      reason: 'head-moved',
      reportedHead: 7,
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
      reportedHead: 9,
      guardsPassed: true,
    })
    expect(cancelled({ 0: '', 1: '', 2: failed })).toMatchObject({
      reason: 'head-moved',
      reportedHead: undefined,
      guardsPassed: false,
    })
    expect(cancelled({ 3: 'ThrottlingError' })).toEqual({ reason: 'unexplained' })
  })
})
