import {
  type AttributeValue,
  BatchGetItemCommand,
  type DynamoDBClient,
  GetItemCommand,
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
import { guardFromItem, storedEventFromItem } from './event-items.ts'
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
import { transactionWriteUnits } from './write-units.ts'

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

/**
 * The production store: one DynamoDB table (see `table-keys.ts` for the key
 * design). An append is one `TransactWriteItems` that moves the session head
 * from the index it expects, writes the events, and claims an ID guard per
 * event; the conditions on those items are the only lock.
 */
export function dynamoDBEventStore(options: DynamoDBEventStoreOptions): EventStore {
  const { client, tableName } = options
  const now = options.now ?? Date.now
  const poll = options.tailPollMs ?? DEFAULT_TAIL_POLL_MS
  const appendRetryMs = options.appendRetryMs ?? DEFAULT_APPEND_RETRY_MS
  // Only a hint: a wrong guess costs one cancelled transaction, never a wrong write.
  const knownHeads = new Map<string, number>()
  const oneAtATime = keyedQueue()

  function rememberHead(sessionId: string, index: number): void {
    knownHeads.delete(sessionId)
    knownHeads.set(sessionId, index)
    if (knownHeads.size > HEAD_CACHE_SIZE)
      knownHeads.delete(knownHeads.keys().next().value as string)
  }

  async function head(sessionId: string): Promise<number> {
    const { Item } = await client.send(
      new GetItemCommand({
        TableName: tableName,
        Key: sessionItemKey(sessionId, HEAD_SK),
        ConsistentRead: true,
      }),
    )
    return Item?.lastIndex?.N === undefined ? 0 : Number(Item.lastIndex.N)
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
      for (const item of page.Items ?? []) events.push(storedEventFromItem(item))
      startKey = page.LastEvaluatedKey
    } while (startKey && (limit === undefined || events.length < limit))
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
    let base = expectedIndex ?? knownHeads.get(sessionId) ?? 0
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
      const request = { tableName, sessionId, base, events, contents, timestamp, expiresAt }
      const transaction = appendTransaction({ ...request, options: appendOptions })
      try {
        sentAt = Date.now()
        await client.send(new TransactWriteItemsCommand({ TransactItems: transaction.items }))
        if (events.length > 0) rememberHead(sessionId, base + events.length)
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
        if (cancelled.reason === 'unexplained' && (await sweptHeadless(sessionId))) {
          base = 0
          continue
        }
        if (cancelled.reason === 'raced') {
          await contended(losses)
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
        const actual = cancelled.reportedHead ?? (await head(sessionId))
        rememberHead(sessionId, actual)
        if (expectedIndex !== undefined) {
          throw new AppendConflictError(sessionId, expectedIndex, actual)
        }
        // "Append at the end": wait for a turn rather than fail, then look
        // again, as others may have appended meanwhile.
        await contended(losses)
        base = await head(sessionId)
      }
    }
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
    if ((await head(sessionId)) !== 0 || (await read(sessionId, { limit: 1 })).length === 0)
      return false
    knownHeads.delete(sessionId)
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
    readCursor,
    ...dynamoDBClaims(client, tableName, now),
    ...dynamoDBSnapshots(client, tableName, now),

    erase(sessionId: string) {
      // Queued behind this instance's appends to the session, and its head
      // hint forgotten: the next append starts the log over at 1.
      return oneAtATime(sessionId, async () => {
        knownHeads.delete(sessionId)
        return eraseSession(client, tableName, sessionId)
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
