import {
  type AttributeValue,
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DeleteItemCommand,
  type DynamoDBClient,
  PutItemCommand,
  QueryCommand,
  type TransactionCanceledException,
  TransactWriteItemsCommand,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb'
import { EraseContendedError } from '../../log/errors.ts'
import { ERASED_ITEM_KINDS, type EraseReceipt, nothingErased } from '../../log/event-store.ts'
import { sleep } from '../../timing/sleep.ts'
import { isAwsError } from './aws-error.ts'
import { indexOfItem, tombstoneItem } from './event-items.ts'
import {
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
  TOMBSTONE_ATTRIBUTE,
} from './table-keys.ts'

type Key = Record<string, AttributeValue>

/** Deletes one BatchWriteItem may carry; keys one BatchGetItem may ask for. */
const BATCH_WRITE_LIMIT = 25
const BATCH_GET_LIMIT = 100
/** Deletes one transaction carries beside the check that the head is absent (100 items). */
const HEADLESS_CHUNK = 99
/** How often an erase starts over when appends keep moving the head under it. */
const ERASE_ROUNDS = 5
/** How often a chunk of a headless erase is sent again after a conflict with another write. */
const CONFLICT_ATTEMPTS = 5

/** Which count of the receipt an item of the session's partition goes to, by its sort key. */
function kindOf(sk: string): Exclude<keyof EraseReceipt, 'sessionId' | 'idGuards'> | undefined {
  if (sk === HEAD_SK) return 'heads'
  if (sk.startsWith('E#')) return 'events'
  if (sk.startsWith('R#')) return 'snapshots'
  if (sk.startsWith('C#')) return 'cursors'
  if (sk.startsWith('K#')) return 'claims'
  return undefined
}

/**
 * Erases a session from the table: every item of its partition (events,
 * snapshots, cursors, claims, and last the head) and the ID guard of each of
 * its events, which live in partitions of their own. The head goes last, on
 * the condition that it is still where the erase found it: an append that
 * lands meanwhile fails that condition, and the erase starts over, so no
 * event is left behind without its head. Guards are deleted only when they
 * name this session (an unguarded event's ID may be another session's guard).
 *
 * Events are not deleted but overwritten with tombstones, items with no
 * content that DynamoDB's TTL deletes a week later, and one more tombstone
 * goes first past the log's end. A step's progress is one `PutItem` that can
 * check only its own item, so a step still streaming when its session is
 * erased must find every index it could write taken: all of them are, by the
 * session's events until they become tombstones and by the tombstones after.
 */
export interface EraseSessionOptions {
  /**
   * Retention's sweep, after DynamoDB's TTL deleted the session's head:
   * erase what the session left only while it has no head. Each batch of
   * deletes is a transaction that checks the head is still absent, so a
   * session re-created meanwhile (an append writes its head with its first
   * events) keeps every item; with a head, nothing is deleted.
   */
  headless?: boolean
  /** The clock of the tombstones' erase time and expiry (default `Date.now`). */
  now?: () => number
  /** Erase only this life of the session: one already ended (erased, expired, started over) removes nothing. */
  life?: string
}

export async function eraseSession(
  client: DynamoDBClient,
  tableName: string,
  sessionId: string,
  { headless = false, now = Date.now, life }: EraseSessionOptions = {},
): Promise<EraseReceipt> {
  const receipt = nothingErased(sessionId)
  for (let round = 1; ; round++) {
    const { items, head, headLife, eventIds, lastEvent } = await readPartition(
      client,
      tableName,
      sessionId,
    )
    if (items.length === 0 && head === undefined) return receipt
    // Another life than the one meant (a request held past an erase and a
    // start over): not this erase's to remove. Its first read decides; the
    // seal then holds the log at the end that read found.
    if (round === 1 && life !== undefined && headLife !== life) return receipt
    if (headless && head !== undefined) return receipt // alive again: not ours to erase
    if (headless) {
      const guards = await ownGuards(client, tableName, sessionId, eventIds)
      const entries = [...items, ...guards.map((key) => ({ key, kind: 'idGuards' as const }))]
      const deleted = await deleteWhileHeadless(client, tableName, sessionId, entries)
      for (const entry of entries.slice(0, deleted)) receipt[entry.kind]++
      if (deleted < entries.length || round >= ERASE_ROUNDS) return receipt
      continue // look again: whatever was written meanwhile without a head
    }
    // First the tombstone past the end, before anything slow (the guards'
    // reads grow with the log): a step still streaming elsewhere writes
    // about four events a second, and once the seal is in place it writes
    // none. The events it wrote meanwhile are found and erased too.
    const end = Math.max(head ?? 0, lastEvent)
    if (end > 0) {
      const sealedAt = await sealPast(client, tableName, sessionId, end, now(), (found) => {
        items.push(...found.map((key) => ({ key, kind: 'events' as const })))
      })
      if (sealedAt === undefined) {
        if (round >= ERASE_ROUNDS) throw new EraseContendedError(sessionId, round)
        continue
      }
      eventIds.push(...sealedAt.eventIds)
    }
    const guards = await ownGuards(client, tableName, sessionId, eventIds)
    const erasedAt = now()
    await writeAll(client, tableName, [
      ...items.map(
        (item): WriteRequest =>
          item.kind === 'events'
            ? { PutRequest: { Item: tombstoneItem(sessionId, indexOfItem(item.key), erasedAt) } }
            : { DeleteRequest: { Key: item.key } },
      ),
      ...guards.map((Key): WriteRequest => ({ DeleteRequest: { Key } })),
    ])
    for (const item of items) receipt[item.kind]++
    receipt.idGuards += guards.length
    if (head === undefined) continue // look again: nothing may land without a head
    try {
      await client.send(
        new DeleteItemCommand({
          TableName: tableName,
          Key: sessionItemKey(sessionId, HEAD_SK),
          ConditionExpression: 'lastIndex = :seen',
          ExpressionAttributeValues: { ':seen': { N: String(head) } },
        }),
      )
      receipt.heads++
      // A write that needs the head (a snapshot) may have landed after the
      // read above; with the head gone none can now, so one more look, headless.
      const late = await eraseSession(client, tableName, sessionId, { headless: true })
      for (const kind of ERASED_ITEM_KINDS) receipt[kind] += late[kind]
      return receipt
    } catch (error) {
      if (!isAwsError(error, 'ConditionalCheckFailedException')) throw error
      // An append moved the head again: look again, a few times.
      if (round >= ERASE_ROUNDS) throw new EraseContendedError(sessionId, round)
    }
  }
}

async function readPartition(
  client: DynamoDBClient,
  tableName: string,
  sessionId: string,
): Promise<{
  items: { key: Key; kind: NonNullable<ReturnType<typeof kindOf>> }[]
  head: number | undefined
  /** The life the head item names ('' on a legacy log), when there is one. */
  headLife: string | undefined
  eventIds: string[]
  /** The highest index of an event (not a tombstone), 0 without one. */
  lastEvent: number
}> {
  const items: { key: Key; kind: NonNullable<ReturnType<typeof kindOf>> }[] = []
  const eventIds: string[] = []
  let head: number | undefined
  let headLife: string | undefined
  let lastEvent = 0
  let startKey: Key | undefined
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: {
          '#pk': PK,
          '#sk': SK,
          '#erased': TOMBSTONE_ATTRIBUTE,
          '#life': HEAD_LIFE_ATTRIBUTE,
        },
        ExpressionAttributeValues: { ':pk': { S: sessionPk(sessionId) } },
        ProjectionExpression: '#pk, #sk, id, lastIndex, #erased, #life',
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    )
    for (const item of page.Items ?? []) {
      const sk = item[SK]?.S ?? ''
      const kind = kindOf(sk)
      // Tombstones are what an earlier erase left: nothing to erase, and they expire.
      if (kind === 'events' && item[TOMBSTONE_ATTRIBUTE] !== undefined) continue
      if (kind === 'events') lastEvent = Math.max(lastEvent, indexOfItem(item))
      if (kind === 'heads') {
        head = Number(item.lastIndex?.N ?? 0)
        headLife = item[HEAD_LIFE_ATTRIBUTE]?.S ?? ''
      } else if (kind) items.push({ key: sessionItemKey(sessionId, sk), kind })
      if (kind === 'events' && item.id?.S !== undefined) eventIds.push(item.id.S)
    }
    startKey = page.LastEvaluatedKey
  } while (startKey)
  return { items, head, headLife, eventIds, lastEvent }
}

/** How often the seal moves on past events that landed beyond the end it was put at. */
const SEAL_STEPS = 20

/**
 * Puts the tombstone past the log's end, `end` as the erase read it: at
 * `end + 1` unless an event landed there first, then past the events found
 * after it, until one lands. `found` is given the keys of those events (to
 * erase with the rest); answers their IDs, or undefined when the log kept
 * growing for `SEAL_STEPS` tries.
 */
async function sealPast(
  client: DynamoDBClient,
  tableName: string,
  sessionId: string,
  end: number,
  erasedAt: number,
  found: (keys: Key[]) => void,
): Promise<{ eventIds: string[] } | undefined> {
  const eventIds: string[] = []
  let at = end
  for (let step = 0; step < SEAL_STEPS; step++) {
    if (await sealed(client, tableName, sessionId, at + 1, erasedAt)) return { eventIds }
    const beyond = await eventsAfter(client, tableName, sessionId, at)
    if (beyond.length === 0) return undefined // a write at that moment: the next round reads again
    found(beyond.map((event) => event.key))
    for (const event of beyond) if (event.id !== undefined) eventIds.push(event.id)
    at = Math.max(at, ...beyond.map((event) => event.index))
  }
  return undefined
}

/** The event items (not tombstones) after `after`: their keys, indices and IDs. */
async function eventsAfter(
  client: DynamoDBClient,
  tableName: string,
  sessionId: string,
  after: number,
): Promise<{ key: Key; index: number; id: string | undefined }[]> {
  const events: { key: Key; index: number; id: string | undefined }[] = []
  let startKey: Key | undefined
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
        ExpressionAttributeNames: { '#pk': PK, '#sk': SK, '#erased': TOMBSTONE_ATTRIBUTE },
        ExpressionAttributeValues: {
          ':pk': { S: sessionPk(sessionId) },
          ':from': { S: eventSk(after + 1) },
          ':to': { S: LAST_EVENT_SK },
        },
        ProjectionExpression: '#pk, #sk, id, #erased',
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    )
    for (const item of page.Items ?? []) {
      if (item[TOMBSTONE_ATTRIBUTE] !== undefined) continue
      events.push({
        key: sessionItemKey(sessionId, item[SK]?.S as string),
        index: indexOfItem(item),
        id: item.id?.S,
      })
    }
    startKey = page.LastEvaluatedKey
  } while (startKey)
  return events
}

/**
 * Puts the tombstone at `index`, past the log's end, unless an event is
 * there (then false): over nothing, or over an earlier erase's tombstone.
 */
async function sealed(
  client: DynamoDBClient,
  tableName: string,
  sessionId: string,
  index: number,
  erasedAt: number,
): Promise<boolean> {
  try {
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: tombstoneItem(sessionId, index, erasedAt),
        ConditionExpression: 'attribute_not_exists(#pk) OR attribute_exists(#erased)',
        ExpressionAttributeNames: { '#pk': PK, '#erased': TOMBSTONE_ATTRIBUTE },
      }),
    )
    return true
  } catch (error) {
    if (isAwsError(error, 'ConditionalCheckFailedException')) return false
    throw error
  }
}

/** The keys of the ID guards among `eventIds` that this session holds. */
async function ownGuards(
  client: DynamoDBClient,
  tableName: string,
  sessionId: string,
  eventIds: readonly string[],
): Promise<Key[]> {
  const owned: Key[] = []
  for (let start = 0; start < eventIds.length; start += BATCH_GET_LIMIT) {
    let keys: Key[] = eventIds
      .slice(start, start + BATCH_GET_LIMIT)
      .map((id) => itemKey(guardPk(id), GUARD_SK))
    while (keys.length > 0) {
      const answer = await client.send(
        new BatchGetItemCommand({
          RequestItems: {
            [tableName]: {
              Keys: keys,
              ConsistentRead: true,
              ProjectionExpression: '#pk, sid',
              ExpressionAttributeNames: { '#pk': PK },
            },
          },
        }),
      )
      for (const item of answer.Responses?.[tableName] ?? []) {
        if (item.sid?.S === sessionId) owned.push(itemKey(item[PK]?.S as string, GUARD_SK))
      }
      keys = answer.UnprocessedKeys?.[tableName]?.Keys ?? []
    }
  }
  return owned
}

async function writeAll(
  client: DynamoDBClient,
  tableName: string,
  all: readonly WriteRequest[],
): Promise<void> {
  for (let start = 0; start < all.length; start += BATCH_WRITE_LIMIT) {
    let requests: WriteRequest[] = all.slice(start, start + BATCH_WRITE_LIMIT)
    while (requests.length > 0) {
      const answer = await client.send(
        new BatchWriteItemCommand({ RequestItems: { [tableName]: requests } }),
      )
      requests = answer.UnprocessedItems?.[tableName] ?? []
      // Throttled: DynamoDB hands back what it did not write; ask again shortly.
      if (requests.length > 0) await sleep(50)
    }
  }
}

/**
 * Deletes `entries` in transactions that each check the session's head is
 * absent, and answers how many it deleted: all of them, or those before the
 * transaction that found a head (the session lives again; the rest is its).
 */
async function deleteWhileHeadless(
  client: DynamoDBClient,
  tableName: string,
  sessionId: string,
  entries: readonly { key: Key }[],
): Promise<number> {
  let deleted = 0
  for (let start = 0; start < entries.length; start += HEADLESS_CHUNK) {
    const chunk = entries.slice(start, start + HEADLESS_CHUNK)
    for (let attempt = 1; ; attempt++) {
      try {
        await client.send(
          new TransactWriteItemsCommand({
            TransactItems: [
              {
                ConditionCheck: {
                  TableName: tableName,
                  Key: sessionItemKey(sessionId, HEAD_SK),
                  ConditionExpression: 'attribute_not_exists(#pk)',
                  ExpressionAttributeNames: { '#pk': PK },
                },
              },
              ...chunk.map(({ key }) => ({ Delete: { TableName: tableName, Key: key } })),
            ],
          }),
        )
        break
      } catch (error) {
        if (!isAwsError<TransactionCanceledException>(error, 'TransactionCanceledException'))
          throw error
        const check = error.CancellationReasons?.[0]?.Code
        if (check === 'ConditionalCheckFailed') return deleted
        // Another write to these items at the same moment: try the chunk again.
        if (attempt >= CONFLICT_ATTEMPTS) throw error
        await sleep(50 * attempt)
      }
    }
    deleted += chunk.length
  }
  return deleted
}
