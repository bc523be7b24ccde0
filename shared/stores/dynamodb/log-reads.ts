import {
  type AttributeValue,
  BatchGetItemCommand,
  GetItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb'
import type { IdGuard } from '../../log/duplicate-batch.ts'
import type { StoredEvent } from '../../log/event.ts'
import type { ReadOptions } from '../../log/event-store.ts'
import {
  guardFromItem,
  indexOfItem,
  isTombstone,
  lifeOfItem,
  storedEventFromItem,
} from './event-items.ts'
import type { StoreContext } from './store-context.ts'
import {
  cursorSk,
  eventSk,
  GUARD_SK,
  guardPk,
  HEAD_LIFE_ATTRIBUTE,
  HEAD_SK,
  itemKey,
  LAST_EVENT_SK,
  PK,
  SK,
  sessionItemKey,
  sessionPk,
} from './table-keys.ts'

/** Events one BatchGetItem may ask for. */
const BATCH_GET_LIMIT = 100

/** The session's head item: its index and life, or undefined when it has none. */
export async function readHeadItem(
  { client, tableName, hints }: StoreContext,
  sessionId: string,
): Promise<{ index: number; life: string } | undefined> {
  const { Item } = await client.send(
    new GetItemCommand({
      TableName: tableName,
      Key: sessionItemKey(sessionId, HEAD_SK),
      ConsistentRead: true,
    }),
  )
  if (Item?.lastIndex?.N === undefined) return undefined
  const head = { index: Number(Item.lastIndex.N), life: Item[HEAD_LIFE_ATTRIBUTE]?.S ?? '' }
  hints.sawHeadItem(sessionId, head.life, head.index)
  return head
}

/** Where the log ends: the head item, then the progress of its life written past it. */
export async function position(
  context: StoreContext,
  sessionId: string,
): Promise<{ index: number; life: string; headItem: number } | undefined> {
  const item = await readHeadItem(context, sessionId)
  if (item === undefined) return undefined
  const beyond = await readLog(context, sessionId, { after: item.index }, item.life)
  return { index: beyond.at(-1)?.index ?? item.index, life: item.life, headItem: item.index }
}

/** The log's last index (0 for a session without one). */
export async function head(context: StoreContext, sessionId: string): Promise<number> {
  return (await position(context, sessionId))?.index ?? 0
}

/**
 * The log after `after`, in one life: it ends at an erase's tombstone, at
 * a gap, and at an item of another life. The life is the items' own; an
 * item written before lives has none and is of its head's (`within`, or
 * read once when the first item lacks one).
 */
export async function readLog(
  context: StoreContext,
  sessionId: string,
  { after = 0, limit }: ReadOptions,
  within?: string,
): Promise<StoredEvent[]> {
  const { client, tableName, hints } = context
  const events: StoredEvent[] = []
  let life = within
  let startKey: Record<string, AttributeValue> | undefined
  pages: do {
    const page = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
        ExpressionAttributeNames: { '#pk': PK, '#sk': SK },
        ExpressionAttributeValues: {
          ':pk': { S: sessionPk(sessionId) },
          ':from': { S: eventSk(after + 1) },
          ':to': { S: LAST_EVENT_SK },
        },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
        ...(limit === undefined ? {} : { Limit: limit - events.length }),
      }),
    )
    for (const item of page.Items ?? []) {
      // An erase's tombstones follow the log of a session started over, and
      // a log has no gaps: it ends at either.
      if (isTombstone(item) || indexOfItem(item) !== after + events.length + 1) break pages
      const own = lifeOfItem(item)
      if (own !== undefined && life !== undefined && own !== life) break pages
      life ??= own ?? (await readHeadItem(context, sessionId))?.life ?? ''
      events.push(storedEventFromItem(item, life))
    }
    startKey = page.LastEvaluatedKey
  } while (startKey && (limit === undefined || events.length < limit))
  const last = events.at(-1)
  if (last) hints.sawEvents(sessionId, last.life, last.index)
  return events
}

/** The ID guards of `eventIds` that exist, by event ID. */
export async function readGuards(
  { client, tableName }: StoreContext,
  eventIds: readonly string[],
): Promise<Map<string, IdGuard>> {
  const guards = new Map<string, IdGuard>()
  for (let start = 0; start < eventIds.length; start += BATCH_GET_LIMIT) {
    let keys = eventIds
      .slice(start, start + BATCH_GET_LIMIT)
      .map((id) => itemKey(guardPk(id), GUARD_SK))
    while (keys.length > 0) {
      const answer = await client.send(
        new BatchGetItemCommand({
          RequestItems: { [tableName]: { Keys: keys, ConsistentRead: true } },
        }),
      )
      for (const item of answer.Responses?.[tableName] ?? []) {
        const guard = guardFromItem(item)
        guards.set(guard.eventId, guard)
      }
      keys = (answer.UnprocessedKeys?.[tableName]?.Keys ?? []) as typeof keys
    }
  }
  return guards
}

/** A handler cursor's position (0 when it has none). */
export async function readCursor(
  { client, tableName }: StoreContext,
  sessionId: string,
  name: string,
): Promise<number> {
  const { Item } = await client.send(
    new GetItemCommand({
      TableName: tableName,
      Key: sessionItemKey(sessionId, cursorSk(name)),
      ConsistentRead: true,
    }),
  )
  return Item?.position?.N === undefined ? 0 : Number(Item.position.N)
}
