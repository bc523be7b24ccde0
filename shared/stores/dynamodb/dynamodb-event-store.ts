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
  guardedCount,
  LifeEndedError,
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
import {
  guardFromItem,
  indexOfItem,
  isTombstone,
  lifeOfItem,
  storedEventFromItem,
} from './event-items.ts'
import { sessionHints } from './session-hints.ts'
import { dynamoDBSnapshots } from './snapshots.ts'
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
  /**
   * The ID of each new life the store starts (default: 72 random bits, 12
   * characters). Unique per session is enough; a simulation passes its own
   * for runs that replay exactly.
   */
  lifeIds?: () => string
}

/** Events one BatchGetItem may ask for. */
const BATCH_GET_LIMIT = 100
/** How many sessions an instance keeps hints of, to skip a read before appending. */
const HEAD_CACHE_SIZE = 10_000
/** How often one append corrects its idea of a head item behind the log before it contends. */
const HEAD_ITEM_CORRECTIONS = 3
/**
 * How long after its last committed write in a life an instance may write a
 * step's progress as a lone `PutItem`, which cannot look at the head. Far
 * shorter than an erase's tombstones live (a week), so a put from a process
 * that froze in between finds a tombstone, never an index an erase left
 * free; past it, the progress goes in a transaction that checks the life.
 */
const PROGRESS_LEASE_MS = 60_000

/** A new life's ID: 72 random bits, 12 characters. */
const randomLife = (): string =>
  btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(9))))
    .replaceAll('+', '-')
    .replaceAll('/', '_')

/** Where an append's transaction builds on: its base, in which life, and what it knows of the head item. */
interface Basis {
  base: number
  life: string
  headItem: number
  baseSeen: boolean
}

/**
 * The production store: one DynamoDB table (see `table-keys.ts` for the key
 * design). An append is one `TransactWriteItems` that moves the session head
 * from the index and the life it holds, writes the events, and claims an ID
 * guard per event; the conditions on those items are the only lock.
 *
 * Streamed progress is the exception (`progress: true` and `guardIds:
 * false`, one event at an expected index this instance wrote the log up to,
 * in its life, within `PROGRESS_LEASE_MS`): one `PutItem` of the event,
 * conditioned on its own item being free, 1 write unit where the
 * transaction with the head cost 4. The head item is then behind the log
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
  const newLife = options.lifeIds ?? randomLife
  const hints = sessionHints(HEAD_CACHE_SIZE)
  const oneAtATime = keyedQueue()

  /** The session's head item: its index and life, or undefined when it has none. */
  async function readHeadItem(
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
  async function position(
    sessionId: string,
  ): Promise<{ index: number; life: string; headItem: number } | undefined> {
    const item = await readHeadItem(sessionId)
    if (item === undefined) return undefined
    const beyond = await readLog(sessionId, { after: item.index }, item.life)
    return { index: beyond.at(-1)?.index ?? item.index, life: item.life, headItem: item.index }
  }

  async function head(sessionId: string): Promise<number> {
    return (await position(sessionId))?.index ?? 0
  }

  /**
   * The log after `after`, in one life: it ends at an erase's tombstone, at
   * a gap, and at an item of another life. The life is the items' own; an
   * item written before lives has none and is of its head's (`within`, or
   * read once when the first item lacks one).
   */
  async function readLog(
    sessionId: string,
    { after = 0, limit }: ReadOptions,
    within?: string,
  ): Promise<StoredEvent[]> {
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
        life ??= own ?? (await readHeadItem(sessionId))?.life ?? ''
        events.push(storedEventFromItem(item, life))
      }
      startKey = page.LastEvaluatedKey
    } while (startKey && (limit === undefined || events.length < limit))
    const last = events.at(-1)
    if (last) hints.sawEvents(sessionId, last.life, last.index)
    return events
  }

  const read = (sessionId: string, readOptions: ReadOptions = {}): Promise<StoredEvent[]> =>
    readLog(sessionId, readOptions)

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

  /** A guarded batch sent again: answered from its ID guards, as first stored (in the life asked for). */
  async function answerResubmission(
    sessionId: string,
    batch: readonly NewEvent[],
    batchContents: readonly string[],
    { guardIds, life }: AppendOptions,
  ): Promise<AppendResult> {
    // Judged on the guarded events alone: the rest have no guards to read.
    const guarded = guardedCount(guardIds, batch.length)
    const events = batch.slice(0, guarded)
    const contents = batchContents.slice(0, guarded)
    const guards = await readGuards(events.map((event) => event.id))
    const { firstIndex, lastIndex } = judgeResubmission(sessionId, events, contents, guards)
    const stored = await read(sessionId, {
      after: firstIndex - 1,
      // A partly guarded batch: read on over its unguarded events, to answer it whole.
      limit: guarded < batch.length ? batch.length : lastIndex - firstIndex + 1,
    })
    const storedLife = stored[0]?.life
    if (life !== undefined && storedLife !== life)
      throw new LifeEndedError(sessionId, life, storedLife)
    const whole =
      stored.length === batch.length &&
      stored.every((event, position) => event.id === batch[position]?.id)
    return {
      events: whole ? stored : stored.slice(0, lastIndex - firstIndex + 1),
      replayed: true,
    }
  }

  /**
   * An unguarded append whose index is taken: a replay when its own events
   * are there (an earlier try whose answer was lost; their IDs are nobody
   * else's), else `APPEND_CONFLICT`.
   */
  async function conflictOrReplay(
    sessionId: string,
    events: readonly NewEvent[],
    { expectedIndex = 0, guardIds, life }: AppendOptions,
  ): Promise<AppendResult> {
    if (guardIds === false) {
      const there = await read(sessionId, { after: expectedIndex, limit: events.length })
      if (
        there.length === events.length &&
        there.every((stored, position) => stored.id === events[position]?.id) &&
        (life === undefined || there[0]?.life === life)
      ) {
        return { events: there, replayed: true }
      }
    }
    throw new AppendConflictError(sessionId, expectedIndex, await head(sessionId))
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

  /** A new life, at index 0: the append creates the session. */
  const creation = (): Basis => ({ base: 0, life: newLife(), headItem: 0, baseSeen: false })

  /**
   * Where an append builds on, from what this instance saw of the session in
   * the life it is for; undefined when that needs a read (`endBasis`).
   */
  function basisFromHints(
    sessionId: string,
    { expectedIndex, life }: AppendOptions,
  ): Basis | undefined {
    // An empty log starts a life; a life named is never empty (endBasis says which is wrong).
    if (expectedIndex === 0) return life === undefined ? creation() : undefined
    const hint = hints.get(sessionId)
    const known =
      hint !== undefined && (life === undefined || hint.life === life) ? hint : undefined
    if (expectedIndex === undefined) {
      if (known) {
        const { last } = known
        return {
          base: last,
          life: known.life,
          headItem: Math.min(known.headItem ?? last, last),
          baseSeen: true,
        }
      }
      return life === undefined ? creation() : undefined
    }
    if (known) {
      return {
        base: expectedIndex,
        life: known.life,
        headItem: Math.min(known.headItem ?? expectedIndex, expectedIndex),
        baseSeen: known.last >= expectedIndex,
      }
    }
    return life === undefined
      ? undefined
      : { base: expectedIndex, life, headItem: expectedIndex, baseSeen: false }
  }

  /** Where the log ends now, read: the basis of an append at the end (or of an expected index, in the life the session is in). */
  async function endBasis(
    sessionId: string,
    { expectedIndex, life }: AppendOptions,
  ): Promise<Basis> {
    const at = await position(sessionId)
    if (life !== undefined && at?.life !== life) throw new LifeEndedError(sessionId, life, at?.life)
    if (at === undefined) {
      if (expectedIndex !== undefined && expectedIndex > 0)
        throw new AppendConflictError(sessionId, expectedIndex, 0)
      return creation()
    }
    const base = expectedIndex ?? at.index
    return {
      base,
      life: at.life,
      headItem: Math.min(at.headItem, base),
      baseSeen: at.index >= base,
    }
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
    const put = await progressPut(sessionId, events, contents, appendOptions)
    if (put) return put
    let basis =
      basisFromHints(sessionId, appendOptions) ?? (await endBasis(sessionId, appendOptions))
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
      const transaction = appendTransaction({
        tableName,
        sessionId,
        ...basis,
        events,
        contents,
        timestamp,
        expiresAt,
        options: appendOptions,
      })
      try {
        sentAt = Date.now()
        await client.send(new TransactWriteItemsCommand({ TransactItems: transaction.items }))
        if (events.length > 0) {
          const last = basis.base + events.length
          hints.wrote(sessionId, basis.life, { last, headItem: last, at: now() })
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
            basis = creation()
            continue
          }
          return answerResubmission(sessionId, events, contents, appendOptions)
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
          basis = creation()
          continue
        }
        if (cancelled.reason === 'raced') {
          await contended(losses)
          continue
        }
        if (cancelled.reason === 'gap' || cancelled.reason === 'index-taken') {
          // The log is not at base in its life: short of it (an expected
          // index it never reached), or past it (another writer's events).
          if (expectedIndex !== undefined) return conflictOrReplay(sessionId, events, appendOptions)
          if (cancelled.reason === 'index-taken') await contended(losses)
          basis = await endBasis(sessionId, appendOptions)
          continue
        }
        if (cancelled.reason !== 'head-moved') throw error
        // The head moved, or is of another life, or is gone. A replay still
        // wins over a stale expected index, and some emulators report only
        // the first failed condition, so look: when every guard is reported
        // as passed, no ID was known; otherwise look.
        if (
          guardedCount(appendOptions.guardIds, events.length) > 0 &&
          !cancelled.guardsPassed &&
          (await readGuards([events[0]?.id as string])).size > 0 &&
          !(await sweptHeadless(sessionId))
        ) {
          return answerResubmission(sessionId, events, contents, appendOptions)
        }
        const found = cancelled.reportedHead ?? (await readHeadItem(sessionId))
        if (found) hints.sawHeadItem(sessionId, found.life, found.index)
        const { life } = appendOptions
        if (life !== undefined && found?.life !== life)
          throw new LifeEndedError(sessionId, life, found?.life)
        if (found === undefined) {
          // No head: erased or expired since this instance looked.
          if (expectedIndex !== undefined && expectedIndex > 0)
            throw new AppendConflictError(sessionId, expectedIndex, 0)
          basis = creation()
          continue
        }
        if (basis.base === 0) {
          // It meant to start the session, which has a log: at its end, or a conflict.
          if (expectedIndex === 0) return conflictOrReplay(sessionId, events, appendOptions)
          basis = { base: found.index, life: found.life, headItem: found.index, baseSeen: false }
          continue
        }
        if (found.life !== basis.life) {
          // What this instance knew was of an ended life: nothing of it holds.
          const base = expectedIndex ?? found.index
          if (found.index > base) return conflictOrReplay(sessionId, events, appendOptions)
          basis = { base, life: found.life, headItem: found.index, baseSeen: false }
          continue
        }
        if (found.index <= basis.base && corrections++ < HEAD_ITEM_CORRECTIONS) {
          // The head item is behind base (progress since) or where base is:
          // the append goes again conditioned on it, and the gap check (or
          // the events' own conditions) tells whether the log is at base.
          basis = { ...basis, headItem: found.index }
          continue
        }
        if (expectedIndex !== undefined) return conflictOrReplay(sessionId, events, appendOptions)
        // "Append at the end": wait for a turn rather than fail, then look
        // again, as others may have appended meanwhile.
        await contended(losses)
        basis = await endBasis(sessionId, appendOptions)
      }
    }
  }

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
  async function progressPut(
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
    hints.forget(sessionId)
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
    restingHead: async (sessionId) => {
      const item = await readHeadItem(sessionId)
      return item?.life ? { index: item.index, life: item.life } : { index: item?.index ?? 0 }
    },
    readCursor,
    ...dynamoDBClaims(client, tableName, now),
    ...dynamoDBSnapshots(client, tableName, now),

    erase(sessionId: string, { life }: { life?: string } = {}) {
      // Queued behind this instance's appends to the session, and its head
      // hint forgotten: the next append starts the log over at 1.
      return oneAtATime(sessionId, async () => {
        hints.forget(sessionId)
        return eraseSession(client, tableName, sessionId, {
          now,
          ...(life === undefined ? {} : { life }),
        })
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
