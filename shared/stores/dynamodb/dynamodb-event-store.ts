import {
  type AttributeValue,
  BatchGetItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  type TransactionCanceledException,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb'
import { eventContent } from '../../log/canonical-json.ts'
import { type IdGuard, judgeResubmission, repeatedIds } from '../../log/duplicate-batch.ts'
import {
  AppendConflictError,
  AppendContendedError,
  CursorConflictError,
  checkUnguardedAppend,
  FencedOutError,
  PartialDuplicateBatchError,
} from '../../log/errors.ts'
import type { NewEvent, StoredEvent } from '../../log/event.ts'
import type {
  AppendOptions,
  AppendResult,
  EventStore,
  ReadOptions,
  TailOptions,
} from '../../log/event-store.ts'
import { backoff } from '../../timing/backoff.ts'
import { sleep } from '../../timing/sleep.ts'
import { keyedQueue } from '../keyed-queue.ts'
import { encodeBatch } from '../payload-codec.ts'
import { tailLoop } from '../tail-loop.ts'
import { appendRetryDelay, DEFAULT_APPEND_RETRY_MS } from './append-retry.ts'
import { appendCancellation, appendTransaction, contentDigest } from './append-transaction.ts'
import { isAwsError } from './aws-error.ts'
import { dynamoDBClaims } from './claims.ts'
import { eraseSession } from './erase-session.ts'
import { guardFromItem, isTombstone, storedEventFromItem } from './event-items.ts'
import { sessionHints } from './session-hints.ts'
import { dynamoDBSnapshots } from './snapshots.ts'
import {
  cursorSk,
  eventSk,
  GUARD_SK,
  guardPk,
  HEAD_SK,
  itemKey,
  LAST_EVENT_SK,
  PK,
  SK,
  sessionItemKey,
  sessionPk,
} from './table-keys.ts'
import { putWriteUnits, transactionWriteUnits } from './write-units.ts'

/** A live tail's rhythm: a streaming step's batches, then idle backoff to a second. */
const DEFAULT_TAIL_POLL_MS = { min: 250, max: 1_000 }

export interface DynamoDBEventStoreOptions {
  client: DynamoDBClient
  tableName: string
  now?: () => number
  /**
   * How often a live tail (an SSE stream) reads the session. After a read
   * that found news it waits `min` (default 250 ms, the rhythm the progress
   * batcher writes a streaming step at, `progress.maxWindowMs`), then backs
   * off, doubling up to `max` (default 1 s) while nothing comes. Each read
   * is a `Query`: a faster rhythm costs requests and shows the same batches.
   */
  tailPollMs?: { min: number; max: number }
  /**
   * How long an append without `expectedIndex` keeps retrying after losing
   * the race for the next index to concurrent appenders, with a random,
   * growing wait between tries (default 10 s). Then it throws
   * `AppendContendedError` having written nothing.
   */
  appendRetryMs?: number
}

/** Events one BatchGetItem may ask for. */
const BATCH_GET_LIMIT = 100
/** How many session heads an instance remembers, to skip a read before appending. */
const HEAD_CACHE_SIZE = 10_000
/** How often one append corrects its idea of a head item behind the log before it contends. */
const HEAD_ITEM_CORRECTIONS = 3

/**
 * The production store: one DynamoDB table (see `table-keys.ts` for the key
 * design). An append is one `TransactWriteItems` that moves the session head
 * from the index it holds, writes the events, and claims an ID guard per
 * event; the conditions on those items are the only lock.
 *
 * Streamed progress is the exception (`progress: true` and `guardIds:
 * false`, one event at an expected index this instance has seen the log
 * reach): one `PutItem` of the event, conditioned on its own item being
 * free, 1 write unit where the transaction with the head cost 4. The head item is then behind the log
 * until the next transaction, which checks that the event it builds on is
 * there; `head()` and every read go on past it. What makes a put that can see
 * only its own item safe against an erase is the erase's tombstones (see
 * `erase-session.ts`).
 */
export function dynamoDBEventStore(options: DynamoDBEventStoreOptions): EventStore {
  const { client, tableName } = options
  const now = options.now ?? Date.now
  const poll = options.tailPollMs ?? DEFAULT_TAIL_POLL_MS
  const appendRetryMs = options.appendRetryMs ?? DEFAULT_APPEND_RETRY_MS
  // The log's last index, and the index its head item holds, as this instance
  // last saw them: a progress put writes the one and not the other.
  const knownHeads = sessionHints(HEAD_CACHE_SIZE)
  const headItems = sessionHints(HEAD_CACHE_SIZE)
  const oneAtATime = keyedQueue()

  /** The index the session's head item holds, or undefined when it has none. */
  async function readHeadItem(sessionId: string): Promise<number | undefined> {
    const { Item } = await client.send(
      new GetItemCommand({
        TableName: tableName,
        Key: sessionItemKey(sessionId, HEAD_SK),
        ConsistentRead: true,
      }),
    )
    if (Item?.lastIndex?.N === undefined) return undefined
    const index = Number(Item.lastIndex.N)
    headItems.set(sessionId, index)
    return index
  }

  /** The head item's index, then the progress written past it since. */
  async function head(sessionId: string): Promise<number> {
    const itemIndex = await readHeadItem(sessionId)
    if (itemIndex === undefined) return 0
    const beyond = await read(sessionId, { after: itemIndex })
    const index = beyond.at(-1)?.index ?? itemIndex
    knownHeads.set(sessionId, index)
    return index
  }

  async function read(
    sessionId: string,
    { after = 0, limit }: ReadOptions = {},
  ): Promise<StoredEvent[]> {
    const events: StoredEvent[] = []
    let startKey: Record<string, AttributeValue> | undefined
    do {
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
      let erased = false
      for (const item of page.Items ?? []) {
        // An erase's tombstones follow the log of a session started over: it ends there.
        if (isTombstone(item)) {
          erased = true
          break
        }
        events.push(storedEventFromItem(item))
      }
      startKey = erased ? undefined : page.LastEvaluatedKey
    } while (startKey && (limit === undefined || events.length < limit))
    const last = events.at(-1)
    if (last) knownHeads.raise(sessionId, last.index)
    return events
  }

  async function readGuards(eventIds: readonly string[]): Promise<Map<string, IdGuard>> {
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

  async function answerResubmission(
    sessionId: string,
    events: readonly NewEvent[],
    contents: readonly string[],
  ): Promise<AppendResult> {
    const guards = await readGuards(events.map((event) => event.id))
    const { firstIndex, lastIndex } = judgeResubmission(sessionId, events, contents, guards)
    const stored = await read(sessionId, {
      after: firstIndex - 1,
      limit: lastIndex - firstIndex + 1,
    })
    return { events: stored, replayed: true }
  }

  function append(
    sessionId: string,
    events: readonly NewEvent[],
    appendOptions: AppendOptions = {},
  ): Promise<AppendResult> {
    // One append per session at a time from this instance: concurrent ones
    // (a burst of pushes, the lanes of one process) queue here instead of
    // racing each other for the head. Other processes still race, below.
    const started = Date.now()
    return oneAtATime(sessionId, () => appendNow(sessionId, events, appendOptions, started))
  }

  async function appendNow(
    sessionId: string,
    events: readonly NewEvent[],
    appendOptions: AppendOptions,
    started: number,
  ): Promise<AppendResult> {
    const { expectedIndex, cursor, fence } = appendOptions
    if (events.length === 0 && !cursor) return { events: [], replayed: false }
    const repeated = repeatedIds(events)
    if (repeated.length > 0)
      throw new PartialDuplicateBatchError(repeated, 'appear twice in the batch')
    checkUnguardedAppend(appendOptions)
    encodeBatch(events) // size limits, before any request
    const contents = events.map((event) => contentDigest(eventContent(event)))
    if (isProgressPut(sessionId, events, appendOptions)) {
      const put = await progressPut(sessionId, events, contents, appendOptions)
      if (put) return put
    }
    let base = expectedIndex ?? knownHeads.get(sessionId) ?? 0
    let corrections = 0
    let sentAt = started
    const contended = async (losses: number): Promise<void> => {
      const retried = Date.now() - started
      if (retried >= appendRetryMs) throw new AppendContendedError(sessionId, retried)
      const delay = appendRetryDelay(losses, Date.now() - sentAt)
      await sleep(Math.min(delay, appendRetryMs - retried))
    }
    for (let losses = 1; ; losses++) {
      const timestamp = appendOptions.timestamp ?? now()
      const { retainForMs } = appendOptions
      // From the store's clock, not an import's timestamp: retention counts idle time.
      const expiresAt =
        retainForMs === undefined ? undefined : Math.ceil((now() + retainForMs) / 1000)
      // A hint beyond base would condition on an index the append does not build on.
      const headItem = Math.min(headItems.get(sessionId) ?? base, base)
      const request = {
        tableName,
        sessionId,
        base,
        headItem,
        // Seen by this instance: the log reaches base without the check.
        baseSeen: base > 0 && knownHeads.get(sessionId) === base,
        events,
        contents,
        timestamp,
        expiresAt,
      }
      const transaction = appendTransaction({ ...request, options: appendOptions })
      try {
        sentAt = Date.now()
        await client.send(new TransactWriteItemsCommand({ TransactItems: transaction.items }))
        if (events.length > 0) {
          knownHeads.set(sessionId, base + events.length)
          headItems.set(sessionId, base + events.length)
        }
        return {
          events: transaction.stored,
          replayed: false,
          writeUnits: transactionWriteUnits(transaction.items),
        }
      } catch (error) {
        if (!isAwsError<TransactionCanceledException>(error, 'TransactionCanceledException'))
          throw error
        const cancelled = appendCancellation(error, transaction)
        if (cancelled.reason === 'resubmission') {
          // The ID guards of an expired session's leftovers are no replay.
          if (await sweptHeadless(sessionId)) {
            base = 0
            continue
          }
          return answerResubmission(sessionId, events, contents)
        }
        if (cancelled.reason === 'fenced' && fence) {
          throw new FencedOutError(sessionId, fence.claim, fence.attempt)
        }
        if (cancelled.reason === 'cursor-moved' && cursor) {
          const actual = await readCursor(sessionId, cursor.name)
          throw new CursorConflictError(sessionId, cursor.name, cursor.from, actual)
        }
        if (
          (cancelled.reason === 'unexplained' || cancelled.reason === 'index-taken') &&
          (await sweptHeadless(sessionId))
        ) {
          base = 0
          continue
        }
        if (cancelled.reason === 'raced') {
          await contended(losses)
          continue
        }
        if (cancelled.reason === 'gap' || cancelled.reason === 'index-taken') {
          // The log is not at base: short of it (an expected index it never
          // reached, or an erase), or past it (another writer's events).
          if (expectedIndex !== undefined) {
            throw new AppendConflictError(sessionId, expectedIndex, await head(sessionId))
          }
          if (cancelled.reason === 'index-taken') await contended(losses)
          base = await head(sessionId)
          continue
        }
        if (cancelled.reason !== 'head-moved') throw error
        // The head moved. A replay still wins over a stale expected index, and
        // some emulators report only the first failed condition, so look.
        // When every guard is reported as passed, no ID was known; otherwise
        // (an emulator that stops at the first failure) look.
        if (
          appendOptions.guardIds !== false &&
          !cancelled.guardsPassed &&
          (await readGuards([events[0]?.id as string])).size > 0 &&
          !(await sweptHeadless(sessionId))
        ) {
          return answerResubmission(sessionId, events, contents)
        }
        const itemIndex = cancelled.reportedHead ?? (await readHeadItem(sessionId))
        if (itemIndex !== undefined) headItems.set(sessionId, itemIndex)
        if (
          itemIndex !== undefined &&
          base > 0 &&
          itemIndex <= base &&
          corrections++ < HEAD_ITEM_CORRECTIONS
        ) {
          // The head item is behind base (progress since) or where base is:
          // the append goes again conditioned on it, and the gap check (or
          // the events' own conditions) tells whether the log is at base.
          continue
        }
        if (expectedIndex !== undefined) {
          throw new AppendConflictError(sessionId, expectedIndex, await head(sessionId))
        }
        // "Append at the end": wait for a turn rather than fail, then look
        // again, as others may have appended meanwhile.
        await contended(losses)
        base = await head(sessionId)
      }
    }
  }

  /**
   * Whether an append is a step's progress this instance may write as one
   * `PutItem`: `progress`, one unguarded event, no cursor, no fence, at an
   * expected index this instance saw the log reach. Only progress: the head
   * item stays behind it, and a resting reader reads the head item alone. That last part is what keeps the log
   * gapless: the put's condition can look only at its own item, so the event
   * before it must be known to be there.
   */
  function isProgressPut(
    sessionId: string,
    events: readonly NewEvent[],
    { progress, guardIds, expectedIndex, cursor, fence }: AppendOptions,
  ): boolean {
    return (
      progress === true &&
      guardIds === false &&
      events.length === 1 &&
      !cursor &&
      !fence &&
      expectedIndex !== undefined &&
      expectedIndex > 0 &&
      knownHeads.get(sessionId) === expectedIndex
    )
  }

  /**
   * The event as one `PutItem` at expectedIndex + 1, on the condition that
   * nothing is there. Taken by another writer's event: a conflict, as for a
   * transaction. Taken by an erase's tombstone (the session started over and
   * is shorter than it was), or in a transaction's hands at that moment:
   * undefined, and the transaction path writes it under the head's condition.
   */
  async function progressPut(
    sessionId: string,
    events: readonly NewEvent[],
    contents: readonly string[],
    appendOptions: AppendOptions,
  ): Promise<AppendResult | undefined> {
    const base = appendOptions.expectedIndex as number
    const timestamp = appendOptions.timestamp ?? now()
    const { items, stored, positions } = appendTransaction({
      tableName,
      sessionId,
      base,
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
      knownHeads.set(sessionId, base + 1)
      return { events: stored, replayed: false, writeUnits: putWriteUnits(item) }
    } catch (error) {
      // A transaction writing the item at that moment refuses a lone write
      // with TransactionConflictException, which the SDK does not retry: the
      // head then says whether it was another writer's event.
      if (
        !isAwsError(error, 'ConditionalCheckFailedException') &&
        !isAwsError(error, 'TransactionConflictException')
      )
        throw error
    }
    const actual = await head(sessionId)
    if (actual !== base) throw new AppendConflictError(sessionId, base, actual)
    return undefined
  }

  /**
   * Retention's TTL deletes an idle session's head, and nothing may have
   * removed the rest yet. When the session has events but no head, this
   * finishes the erase (the append then starts the log over) and says so.
   * Headless, as the router's sweep: another process may start the session
   * over meanwhile, and its head then keeps every item it wrote. Only on an
   * append's failure paths: it costs nothing when appends succeed.
   */
  async function sweptHeadless(sessionId: string): Promise<boolean> {
    if (
      (await readHeadItem(sessionId)) !== undefined ||
      (await read(sessionId, { limit: 1 })).length === 0
    )
      return false
    knownHeads.delete(sessionId)
    headItems.delete(sessionId)
    await eraseSession(client, tableName, sessionId, { headless: true })
    return true
  }

  async function readCursor(sessionId: string, name: string): Promise<number> {
    const { Item } = await client.send(
      new GetItemCommand({
        TableName: tableName,
        Key: sessionItemKey(sessionId, cursorSk(name)),
        ConsistentRead: true,
      }),
    )
    return Item?.position?.N === undefined ? 0 : Number(Item.position.N)
  }

  return {
    append,
    read,
    head,
    // The head item alone: one read, behind the log only while a step streams.
    restingHead: async (sessionId) => (await readHeadItem(sessionId)) ?? 0,
    readCursor,
    ...dynamoDBClaims(client, tableName, now),
    ...dynamoDBSnapshots(client, tableName, now),

    erase(sessionId: string) {
      // Queued behind this instance's appends to the session, and its head
      // hint forgotten: the next append starts the log over at 1.
      return oneAtATime(sessionId, async () => {
        knownHeads.delete(sessionId)
        headItems.delete(sessionId)
        return eraseSession(client, tableName, sessionId, { now })
      })
    },

    tail(sessionId: string, { after = 0, signal }: TailOptions = {}): AsyncIterable<StoredEvent> {
      return tailLoop(
        {
          read: (cursor) => read(sessionId, { after: cursor }),
          waitForNews: (_cursor, idleRounds, abortSignal) =>
            sleep(
              backoff(idleRounds, { baseDelayMs: poll.min, maxDelayMs: poll.max, jitter: 'none' }),
              abortSignal,
            ),
        },
        after,
        signal,
      )
    },
  }
}
