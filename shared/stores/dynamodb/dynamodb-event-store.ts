import { createHash } from 'node:crypto'
import {
  type AttributeValue,
  BatchGetItemCommand,
  type CancellationReason,
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactionCanceledException,
  type TransactWriteItem,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb'
import { eventContent } from '../../log/canonical-json.ts'
import { type IdGuard, judgeResubmission, repeatedIds } from '../../log/duplicate-batch.ts'
import {
  AppendConflictError,
  AppendContendedError,
  ClaimHeldError,
  CursorConflictError,
  FencedOutError,
  PartialDuplicateBatchError,
} from '../../log/errors.ts'
import type { NewEvent, StoredEvent } from '../../log/event.ts'
import type {
  AppendOptions,
  AppendResult,
  Claim,
  ClaimOptions,
  EventStore,
  ReadOptions,
  StoredSnapshot,
  TailOptions,
} from '../../log/event-store.ts'
import { MAX_EVENT_BYTES } from '../../log/limits.ts'
import { backoff } from '../../timing/backoff.ts'
import { sleep } from '../../timing/sleep.ts'
import { keyedQueue } from '../keyed-queue.ts'
import { decodePayload, encodeBatch, encodePayload } from '../payload-codec.ts'
import { tailLoop } from '../tail-loop.ts'
import { appendRetryDelay, DEFAULT_APPEND_RETRY_MS } from './append-retry.ts'
import { eventItem, guardFromItem, guardItem, storedEventFromItem } from './event-items.ts'
import {
  CLAIM_ITEM_RETENTION_SECONDS,
  CLAIM_UNTIL_ATTRIBUTE,
  claimSk,
  cursorSk,
  eventSk,
  GUARD_SK,
  guardPk,
  HEAD_SK,
  LAST_EVENT_SK,
  PK,
  SK,
  sessionPk,
  snapshotSk,
  TTL_ATTRIBUTE,
} from './table-keys.ts'

export interface DynamoDBEventStoreOptions {
  client: DynamoDBClient
  tableName: string
  now?: () => number
  /** Live tails poll with backoff between these bounds (defaults 25 ms to 1 s). */
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
  const poll = options.tailPollMs ?? { min: 25, max: 1000 }
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
        Key: { [PK]: { S: sessionPk(sessionId) }, [SK]: { S: HEAD_SK } },
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
        .map((id) => ({ [PK]: { S: guardPk(id) }, [SK]: { S: GUARD_SK } }))
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

  function transaction(
    sessionId: string,
    base: number,
    events: readonly NewEvent[],
    contents: readonly string[],
    timestamp: number,
    { cursor, fence }: AppendOptions,
  ): {
    items: TransactWriteItem[]
    stored: StoredEvent[]
    headAt: number
    cursorAt: number
    fenceAt: number
  } {
    const encoded = encodeBatch(events)
    const first = base + 1
    const items: TransactWriteItem[] = []
    // Guards first: a replay is then reported even by an emulator that stops
    // evaluating at the first failed condition.
    events.forEach((event, position) => {
      items.push({
        Put: {
          TableName: tableName,
          Item: guardItem({
            eventId: event.id,
            sessionId,
            index: first + position,
            content: contents[position] as string,
            batchFirstIndex: first,
            batchSize: events.length,
          }),
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': PK },
        },
      })
    })
    const headAt = events.length === 0 ? -1 : items.length
    if (events.length > 0)
      items.push({
        Update: {
          TableName: tableName,
          Key: { [PK]: { S: sessionPk(sessionId) }, [SK]: { S: HEAD_SK } },
          UpdateExpression:
            'SET lastIndex = :last, updatedAt = :now, createdAt = if_not_exists(createdAt, :now)',
          ...(base === 0
            ? {
                ConditionExpression: 'attribute_not_exists(#pk)',
                ExpressionAttributeNames: { '#pk': PK },
              }
            : { ConditionExpression: 'lastIndex = :base' }),
          // A lost race then says where the head is, saving a read.
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          ExpressionAttributeValues: {
            ':last': { N: String(base + events.length) },
            ':now': { N: String(timestamp) },
            ...(base === 0 ? {} : { ':base': { N: String(base) } }),
          },
        },
      })
    const stored = events.map((event, position): StoredEvent => {
      const index = first + position
      const payload = encoded[position] as (typeof encoded)[number]
      items.push({
        Put: {
          TableName: tableName,
          Item: eventItem(sessionId, index, timestamp, event, payload),
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': PK },
        },
      })
      return {
        ...event,
        payload: decodePayload(
          payload.kind === 'gzip' ? { gzip: payload.data } : { json: payload.json },
        ),
        sessionId,
        index,
        timestamp,
      }
    })
    const cursorAt = cursor ? items.length : -1
    if (cursor) {
      items.push({
        Update: {
          TableName: tableName,
          Key: { [PK]: { S: sessionPk(sessionId) }, [SK]: { S: cursorSk(cursor.name) } },
          UpdateExpression: 'SET #position = :to',
          ConditionExpression:
            cursor.from === 0
              ? 'attribute_not_exists(#position) OR #position = :from'
              : '#position = :from',
          ExpressionAttributeNames: { '#position': 'position' },
          ExpressionAttributeValues: {
            ':to': { N: String(cursor.to) },
            ':from': { N: String(cursor.from) },
          },
        },
      })
    }
    const fenceAt = fence ? items.length : -1
    if (fence) {
      items.push({
        ConditionCheck: {
          TableName: tableName,
          Key: { [PK]: { S: sessionPk(sessionId) }, [SK]: { S: claimSk(fence.claim) } },
          ConditionExpression: 'attempt = :attempt',
          ExpressionAttributeValues: { ':attempt': { N: String(fence.attempt) } },
        },
      })
    }
    return { items, stored, headAt, cursorAt, fenceAt }
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
    encodeBatch(events) // size limits, before any request
    const contents = events.map((event) => digest(eventContent(event)))
    let base = expectedIndex ?? knownHeads.get(sessionId) ?? 0
    let sentAt = started
    const contended = async (losses: number): Promise<void> => {
      const retried = Date.now() - started
      if (retried >= appendRetryMs) throw new AppendContendedError(sessionId, retried)
      const delay = appendRetryDelay(losses, Date.now() - sentAt)
      await sleep(Math.min(delay, appendRetryMs - retried), undefined)
    }
    for (let losses = 1; ; losses++) {
      const { items, stored, headAt, cursorAt, fenceAt } = transaction(
        sessionId,
        base,
        events,
        contents,
        now(),
        appendOptions,
      )
      try {
        sentAt = Date.now()
        await client.send(new TransactWriteItemsCommand({ TransactItems: items }))
        if (events.length > 0) rememberHead(sessionId, base + events.length)
        return { events: stored, replayed: false }
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error
        const reasons: CancellationReason[] = error.CancellationReasons ?? []
        const failed = (position: number): boolean =>
          reasons[position]?.Code === 'ConditionalCheckFailed'
        const guardFailed = events.some((_event, position) => failed(position))
        const raced = reasons.some((reason) => reason.Code === 'TransactionConflict')
        if (guardFailed) return answerResubmission(sessionId, events, contents)
        if (failed(fenceAt) && fence)
          throw new FencedOutError(sessionId, fence.claim, fence.attempt)
        if (failed(cursorAt) && cursor) {
          throw new CursorConflictError(
            sessionId,
            cursor.name,
            cursor.from,
            await readCursor(sessionId, cursor.name),
          )
        }
        if (raced) {
          await contended(losses)
          continue
        }
        if (!failed(headAt)) throw error
        // The head moved. A replay still wins over a stale expected index, and
        // some emulators report only the first failed condition, so look.
        // When every guard is reported as passed, no ID was known; otherwise
        // (an emulator that stops at the first failure) look.
        const guardsPassed = events.every((_event, position) => reasons[position]?.Code === 'None')
        if (!guardsPassed && (await readGuards([events[0]?.id as string])).size > 0) {
          return answerResubmission(sessionId, events, contents)
        }
        const reported = reasons[headAt]?.Item?.lastIndex?.N
        const actual = reported === undefined ? await head(sessionId) : Number(reported)
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

  async function readCursor(sessionId: string, name: string): Promise<number> {
    const { Item } = await client.send(
      new GetItemCommand({
        TableName: tableName,
        Key: { [PK]: { S: sessionPk(sessionId) }, [SK]: { S: cursorSk(name) } },
        ConsistentRead: true,
      }),
    )
    return Item?.position?.N === undefined ? 0 : Number(Item.position.N)
  }

  async function readClaim(sessionId: string, key: string): Promise<Claim | undefined> {
    const { Item } = await client.send(
      new GetItemCommand({
        TableName: tableName,
        Key: { [PK]: { S: sessionPk(sessionId) }, [SK]: { S: claimSk(key) } },
        ConsistentRead: true,
      }),
    )
    return Item ? claimFromItem(key, Item) : undefined
  }

  return {
    append,
    read,
    head,
    readCursor,
    readClaim,

    async claim(sessionId: string, key: string, { ttlMs }: ClaimOptions): Promise<Claim> {
      const at = now()
      try {
        const { Attributes } = await client.send(
          new UpdateItemCommand({
            TableName: tableName,
            Key: { [PK]: { S: sessionPk(sessionId) }, [SK]: { S: claimSk(key) } },
            UpdateExpression: `SET attempt = if_not_exists(attempt, :zero) + :one, #until = :until, #ttl = :ttl`,
            ConditionExpression: 'attribute_not_exists(attempt) OR #until <= :now',
            ExpressionAttributeNames: CLAIM_NAMES,
            ExpressionAttributeValues: {
              ':zero': { N: '0' },
              ':one': { N: '1' },
              ':until': { N: String(at + ttlMs) },
              ':now': { N: String(at) },
              ':ttl': { N: String(claimItemExpiry(at + ttlMs)) },
            },
            ReturnValues: 'ALL_OLD',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        )
        const claim: Claim = {
          key,
          attempt: Number(Attributes?.attempt?.N ?? 0) + 1,
          expiresAt: at + ttlMs,
        }
        if (Attributes?.attempt === undefined) return claim
        const ended = Attributes.ended?.S
        return {
          ...claim,
          previous: ended === 'released' || ended === 'revoked' ? ended : 'expired',
        }
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error
        const held = error.Item ? claimFromItem(key, error.Item) : await readClaim(sessionId, key)
        throw new ClaimHeldError(sessionId, key, held?.attempt ?? 0, held?.expiresAt ?? at)
      }
    },

    async releaseClaim(sessionId: string, claim: Claim): Promise<void> {
      try {
        await client.send(
          new UpdateItemCommand({
            TableName: tableName,
            Key: { [PK]: { S: sessionPk(sessionId) }, [SK]: { S: claimSk(claim.key) } },
            UpdateExpression: 'SET #until = :zero, #ttl = :ttl, ended = :released',
            ConditionExpression: 'attempt = :attempt',
            ExpressionAttributeNames: CLAIM_NAMES,
            ExpressionAttributeValues: {
              ':zero': { N: '0' },
              ':released': { S: 'released' },
              ':attempt': { N: String(claim.attempt) },
              ':ttl': { N: String(claimItemExpiry(now())) },
            },
          }),
        )
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error
      }
    },

    async revokeClaim(sessionId: string, key: string): Promise<void> {
      await client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: { [PK]: { S: sessionPk(sessionId) }, [SK]: { S: claimSk(key) } },
          UpdateExpression:
            'SET attempt = if_not_exists(attempt, :zero) + :one, #until = :zero, #ttl = :ttl, ended = :revoked',
          ExpressionAttributeNames: CLAIM_NAMES,
          ExpressionAttributeValues: {
            ':zero': { N: '0' },
            ':one': { N: '1' },
            ':revoked': { S: 'revoked' },
            ':ttl': { N: String(claimItemExpiry(now())) },
          },
        }),
      )
    },

    async renewClaim(sessionId: string, claim: Claim, { ttlMs }: ClaimOptions): Promise<Claim> {
      const expiresAt = now() + ttlMs
      try {
        await client.send(
          new UpdateItemCommand({
            TableName: tableName,
            Key: { [PK]: { S: sessionPk(sessionId) }, [SK]: { S: claimSk(claim.key) } },
            UpdateExpression: 'SET #until = :until, #ttl = :ttl',
            ConditionExpression: 'attempt = :attempt',
            ExpressionAttributeNames: CLAIM_NAMES,
            ExpressionAttributeValues: {
              ':until': { N: String(expiresAt) },
              ':attempt': { N: String(claim.attempt) },
              ':ttl': { N: String(claimItemExpiry(expiresAt)) },
            },
          }),
        )
        return { ...claim, expiresAt }
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error
        throw new FencedOutError(sessionId, claim.key, claim.attempt)
      }
    },
    tail(sessionId: string, { after = 0, signal }: TailOptions = {}): AsyncIterable<StoredEvent> {
      return tailLoop(
        {
          read: (cursor) => read(sessionId, { after: cursor }),
          waitForNews: (_cursor, idleRounds, abortSignal) =>
            sleep(
              backoff(idleRounds - 1, { initial: poll.min, max: poll.max, jitter: 'none' }),
              abortSignal,
            ),
        },
        after,
        signal,
      )
    },

    async readSnapshot(
      sessionId: string,
      reducerName: string,
    ): Promise<StoredSnapshot | undefined> {
      const { Item } = await client.send(
        new GetItemCommand({
          TableName: tableName,
          Key: { [PK]: { S: sessionPk(sessionId) }, [SK]: { S: snapshotSk(reducerName) } },
        }),
      )
      if (!Item) return undefined
      try {
        return {
          index: Number(Item.i?.N),
          state: decodePayload({ json: Item.p?.S, gzip: Item.pz?.B }),
        }
      } catch {
        return undefined
      }
    },

    async writeSnapshot(
      sessionId: string,
      reducerName: string,
      snapshot: StoredSnapshot,
    ): Promise<void> {
      const state = encodePayload(snapshot.state)
      // A snapshot is a cache: one too large for an item is not stored, and
      // state() folds from the log instead.
      if (state.bytes > MAX_EVENT_BYTES) return
      try {
        await client.send(
          new PutItemCommand({
            TableName: tableName,
            Item: {
              [PK]: { S: sessionPk(sessionId) },
              [SK]: { S: snapshotSk(reducerName) },
              i: { N: String(snapshot.index) },
              ts: { N: String(now()) },
              ...(state.kind === 'gzip' ? { pz: { B: state.data } } : { p: { S: state.json } }),
            },
            ConditionExpression: 'attribute_not_exists(#pk) OR i < :index',
            ExpressionAttributeNames: { '#pk': PK },
            ExpressionAttributeValues: { ':index': { N: String(snapshot.index) } },
          }),
        )
      } catch (error) {
        if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error
      }
    },
  }
}

/**
 * A claim item holds its claim's expiry in epoch milliseconds (`until`) and,
 * apart, the table's TTL attribute in epoch seconds, which DynamoDB reads as
 * seconds: a millisecond value there would never expire.
 */
const CLAIM_NAMES = { '#until': CLAIM_UNTIL_ATTRIBUTE, '#ttl': TTL_ATTRIBUTE }

/**
 * When DynamoDB may delete a claim item: a week after the claim ends. By
 * then its work has long committed its result (or been taken over), and no
 * attempt it fenced can still be writing (Lambda runs 15 minutes at most);
 * only a session left with a crashed call for a week would see that call's
 * next attempt as its first.
 */
function claimItemExpiry(untilMs: number): number {
  return Math.ceil(untilMs / 1000) + CLAIM_ITEM_RETENTION_SECONDS
}

function claimFromItem(key: string, item: Record<string, AttributeValue>): Claim {
  return {
    key,
    attempt: Number(item.attempt?.N ?? 0),
    expiresAt: Number(item[CLAIM_UNTIL_ATTRIBUTE]?.N ?? 0),
  }
}

function digest(content: string): string {
  return createHash('sha256').update(content).digest('base64url')
}
