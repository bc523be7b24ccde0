import { type AttributeValue, PutItemCommand } from '@aws-sdk/client-dynamodb'
import type { NewEvent } from '../../log/event.ts'
import type { AppendOptions, AppendResult } from '../../log/event-store.ts'
import { appendTransaction } from './append-transaction.ts'
import { isAwsError } from './aws-error.ts'
import type { StoreContext } from './store-context.ts'
import { PK } from './table-keys.ts'
import { putWriteUnits } from './write-units.ts'

/**
 * How long after its last committed write in a life an instance may write a
 * step's progress as a lone `PutItem`, which cannot look at the head. Far
 * shorter than an erase's tombstones live (a week), so a put from a process
 * that froze in between finds a tombstone, never an index an erase left
 * free; past it, the progress goes in a transaction that checks the life.
 */
const PROGRESS_LEASE_MS = 60_000

/**
 * A step's progress as one `PutItem`, when this instance may write it so
 * (see `PROGRESS_LEASE_MS`): `progress`, one unguarded event, no cursor,
 * no fence, at the index this instance last wrote the log up to, in the
 * life asked for, within the lease. That keeps the log gapless and of one
 * life: the put's condition can look only at its own item, so the event
 * before it must be known to be there, and an erase since must have left
 * a tombstone where it writes. Undefined when it may not, or when the put
 * found its index taken (by an event or a tombstone, or a transaction at
 * that moment): the transaction path then writes it under the head's
 * condition, which tells a replay, a conflict and an ended life apart.
 */
export async function progressPut(
  { client, tableName, now, hints }: StoreContext,
  sessionId: string,
  events: readonly NewEvent[],
  contents: readonly string[],
  appendOptions: AppendOptions,
): Promise<AppendResult | undefined> {
  const { progress, guardIds, expectedIndex, cursor, fence, retainForMs } = appendOptions
  if (progress !== true || guardIds !== false || events.length !== 1 || cursor || fence)
    return undefined
  const hint = hints.get(sessionId)
  const lease = Math.min(PROGRESS_LEASE_MS, (retainForMs ?? Number.POSITIVE_INFINITY) / 2)
  if (
    hint === undefined ||
    expectedIndex === undefined ||
    expectedIndex === 0 ||
    hint.last !== expectedIndex ||
    (appendOptions.life !== undefined && hint.life !== appendOptions.life) ||
    hint.wroteAt === undefined ||
    now() - hint.wroteAt > lease
  )
    return undefined
  const base = expectedIndex
  const timestamp = appendOptions.timestamp ?? now()
  const { items, stored, positions } = appendTransaction({
    tableName,
    sessionId,
    base,
    life: hint.life,
    events,
    contents,
    timestamp,
    options: appendOptions,
  })
  const item = items[positions.events]?.Put?.Item as Record<string, AttributeValue>
  try {
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: item,
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': PK },
      }),
    )
    hints.wrote(sessionId, hint.life, { last: base + 1, at: now() })
    return { events: stored, replayed: false, writeUnits: putWriteUnits(item) }
  } catch (error) {
    // A transaction writing the item at that moment refuses a lone write
    // with TransactionConflictException, which the SDK does not retry.
    if (
      !isAwsError(error, 'ConditionalCheckFailedException') &&
      !isAwsError(error, 'TransactionConflictException')
    )
      throw error
    return undefined
  }
}
