import { createHash } from 'node:crypto'
import type {
  AttributeValue,
  CancellationReason,
  TransactionCanceledException,
  TransactWriteItem,
} from '@aws-sdk/client-dynamodb'
import { guardedCount } from '../../log/errors.ts'
import { type NewEvent, type StoredEvent, versionField } from '../../log/event.ts'
import type { AppendOptions } from '../../log/event-store.ts'
import { decodePayload, encodeBatch } from '../payload-codec.ts'
import { eventItem, guardItem } from './event-items.ts'
import {
  claimSk,
  cursorSk,
  eventSk,
  HEAD_LIFE_ATTRIBUTE,
  HEAD_SK,
  LIFE_ATTRIBUTE,
  PK,
  sessionItemKey,
  TOMBSTONE_ATTRIBUTE,
  TTL_ATTRIBUTE,
} from './table-keys.ts'

/**
 * One append as one `TransactWriteItems`: a `Put` per ID guard, the `Update`
 * of the session head conditioned on the index and the life it holds (a new
 * session's head on there being none: the append starts a life), a check
 * that the event the append builds on is there, in that life, when the head
 * item is behind it (a step's progress is written without the head: see
 * `dynamodb-event-store.ts`), a `Put` per event, then the handler cursor and
 * the claim fence when asked for. The conditions are the only lock: an
 * append built on what an instance saw of one life can only commit while
 * the session is in that life. `positions` says which item is which, to read
 * the cancellation reasons, which come in item order.
 */
export interface AppendTransaction {
  items: TransactWriteItem[]
  /** The events as they will be stored if the transaction commits. */
  stored: StoredEvent[]
  /**
   * Item positions; -1 when the transaction has no such item. The guards
   * come first, `guards` of them (none with `guardIds: false`).
   */
  positions: {
    guards: number
    head: number
    /** The check of the event at `base`, when the head item is behind it. */
    gap: number
    /** The first event's `Put`; the others follow it. */
    events: number
    cursor: number
    fence: number
  }
}

export interface AppendRequest {
  tableName: string
  sessionId: string
  /** The head the append expects: its events go at base + 1, base + 2, ... */
  base: number
  /**
   * The life the append writes in: the one the head item holds (`''` for a
   * session written before lives), or, with `base` 0, the new life the
   * append starts.
   */
  life: string
  /**
   * The index the session's head item holds, when it is behind `base`: the
   * progress written since moved the log but not the item. The head's update
   * is then conditioned on it, and the event at `base` is checked, which
   * proves the log reaches `base` (default: `base`).
   */
  headItem?: number
  /**
   * The writer saw the event at `base` in `life` (wrote or read it), so the
   * log reaches it without a check: only an erase removes an event, and it
   * ends the life, which the head's condition sees.
   */
  baseSeen?: boolean
  events: readonly NewEvent[]
  /** Each event's content digest (`contentDigest`), as the guards keep it. */
  contents: readonly string[]
  timestamp: number
  /**
   * The session's expiry in epoch seconds (retention), written on the head
   * as the table's TTL attribute, moved by every append that carries it.
   */
  expiresAt?: number
  options: AppendOptions
}

export function appendTransaction({
  tableName,
  sessionId,
  base,
  life,
  headItem = base,
  baseSeen = false,
  events,
  contents,
  timestamp,
  expiresAt,
  options: { cursor, fence, guardIds },
}: AppendRequest): AppendTransaction {
  const encoded = encodeBatch(events)
  const first = base + 1
  const items: TransactWriteItem[] = []
  const absent = {
    ConditionExpression: 'attribute_not_exists(#pk)',
    ExpressionAttributeNames: { '#pk': PK },
  }
  // Guards first: a replay is then reported even by an emulator that stops
  // evaluating at the first failed condition. Without them (`guardIds:
  // false`, or past a count) the head's expected index is what refuses a
  // repeated append.
  const guarded = guardedCount(guardIds, events.length)
  for (const [position, event] of events.slice(0, guarded).entries()) {
    const guard = guardItem({
      eventId: event.id,
      sessionId,
      index: first + position,
      content: contents[position] as string,
      batchFirstIndex: first,
      batchSize: guarded,
    })
    items.push({ Put: { TableName: tableName, Item: guard, ...absent } })
  }
  const guards = items.length
  const head = events.length === 0 ? -1 : items.length
  const creates = base === 0
  const lifeValue: Record<string, AttributeValue> = life === '' ? {} : { ':life': { S: life } }
  if (events.length > 0)
    items.push({
      Update: {
        TableName: tableName,
        Key: sessionItemKey(sessionId, HEAD_SK),
        UpdateExpression: `SET lastIndex = :last, updatedAt = :now, createdAt = if_not_exists(createdAt, :now)${creates && life !== '' ? ', #life = :life' : ''}${expiresAt === undefined ? '' : ', #ttl = :expires'}`,
        // A new life's head is the session's first; a life's next, the one it holds.
        ConditionExpression: creates
          ? 'attribute_not_exists(#pk)'
          : `lastIndex = :base AND ${isLife('#life', life)}`,
        ExpressionAttributeNames: {
          ...(creates ? { '#pk': PK } : {}),
          ...(creates && life === '' ? {} : { '#life': HEAD_LIFE_ATTRIBUTE }),
          ...(expiresAt === undefined ? {} : { '#ttl': TTL_ATTRIBUTE }),
        },
        // A lost race then says where the head is, and in which life, saving a read.
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        ExpressionAttributeValues: {
          ':last': { N: String(base + events.length) },
          ':now': { N: String(timestamp) },
          ...(creates ? {} : { ':base': { N: String(headItem) } }),
          ...lifeValue,
          ...(expiresAt === undefined ? {} : { ':expires': { N: String(expiresAt) } }),
        },
      },
    })
  const gap = events.length > 0 && base > 0 && headItem < base && !baseSeen ? items.length : -1
  if (gap !== -1)
    items.push({
      ConditionCheck: {
        TableName: tableName,
        Key: sessionItemKey(sessionId, eventSk(base)),
        // An event of this life, or one written without a life by a2-aws
        // before lives (under this head, so of its life).
        ConditionExpression: `attribute_exists(#pk) AND attribute_not_exists(#erased)${life === '' ? '' : ' AND (#l = :life OR attribute_not_exists(#l))'}`,
        ExpressionAttributeNames: {
          '#pk': PK,
          '#erased': TOMBSTONE_ATTRIBUTE,
          ...(life === '' ? {} : { '#l': LIFE_ATTRIBUTE }),
        },
        ...(life === '' ? {} : { ExpressionAttributeValues: lifeValue }),
      },
    })
  const eventsAt = events.length === 0 ? -1 : items.length
  const stored = events.map((event, position): StoredEvent => {
    const index = first + position
    const payload = encoded[position] as (typeof encoded)[number]
    items.push({
      Put: {
        TableName: tableName,
        Item: eventItem(sessionId, index, timestamp, event, payload, life),
        // Over nothing, or over an erase's tombstone: the head's condition
        // says this is the session's log as it is now.
        ConditionExpression: 'attribute_not_exists(#pk) OR attribute_exists(#erased)',
        ExpressionAttributeNames: { '#pk': PK, '#erased': TOMBSTONE_ATTRIBUTE },
      },
    })
    return {
      id: event.id,
      type: event.type,
      payload: decodePayload(
        payload.kind === 'gzip' ? { gzip: payload.data } : { json: payload.json },
      ),
      sessionId,
      life,
      index,
      timestamp,
      ...versionField(event.version),
    }
  })
  const cursorAt = cursor ? items.length : -1
  if (cursor) {
    items.push({
      Update: {
        TableName: tableName,
        Key: sessionItemKey(sessionId, cursorSk(cursor.name)),
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
        Key: sessionItemKey(sessionId, claimSk(fence.claim)),
        ConditionExpression: 'attempt = :attempt',
        ExpressionAttributeValues: { ':attempt': { N: String(fence.attempt) } },
      },
    })
  }
  return {
    items,
    stored,
    positions: { guards, head, gap, events: eventsAt, cursor: cursorAt, fence: fenceAt },
  }
}

/** Why DynamoDB cancelled an append, read from its reasons (in item order). */
export type AppendCancellation =
  /** An event ID is taken: an exact replay, or a partial duplicate. */
  | { reason: 'resubmission' }
  /** A newer attempt holds the claim the append was fenced on. */
  | { reason: 'fenced' }
  /** Another worker moved the handler cursor first. */
  | { reason: 'cursor-moved' }
  /** Another transaction was writing the same items at that moment. */
  | { reason: 'raced' }
  /** The log does not reach the index the append builds on (or it was erased). */
  | { reason: 'gap' }
  /** An event is at an index the append would write: the log is past its base. */
  | { reason: 'index-taken' }
  /**
   * Another appender took the index, or the session is in another life (or
   * in none). `reportedHead` is the head item, when DynamoDB returned it
   * (none when there is no head, or the emulator does not say);
   * `guardsPassed` is false when an emulator stopped evaluating before the
   * guards, so one may still be taken.
   */
  | {
      reason: 'head-moved'
      reportedHead: { index: number; life: string } | undefined
      guardsPassed: boolean
    }
  /** Nothing this store knows how to answer. */
  | { reason: 'unexplained' }

export function appendCancellation(
  error: TransactionCanceledException,
  transaction: AppendTransaction,
): AppendCancellation {
  const reasons: CancellationReason[] = error.CancellationReasons ?? []
  const failed = (position: number): boolean => reasons[position]?.Code === 'ConditionalCheckFailed'
  const { head, gap, events, cursor, fence } = transaction.positions
  const guards = Array.from({ length: transaction.positions.guards }, (_, position) => position)
  if (guards.some(failed)) return { reason: 'resubmission' }
  if (fence !== -1 && failed(fence)) return { reason: 'fenced' }
  if (cursor !== -1 && failed(cursor)) return { reason: 'cursor-moved' }
  if (reasons.some((reason) => reason.Code === 'TransactionConflict')) return { reason: 'raced' }
  if (head === -1 || !failed(head)) {
    if (gap !== -1 && failed(gap)) return { reason: 'gap' }
    const puts = transaction.stored.map((_, position) => events + position)
    if (events !== -1 && puts.some(failed)) return { reason: 'index-taken' }
    return { reason: 'unexplained' }
  }
  const reported = reasons[head]?.Item
  return {
    reason: 'head-moved',
    reportedHead:
      reported?.lastIndex?.N === undefined
        ? undefined
        : {
            index: Number(reported.lastIndex.N),
            life: reported[HEAD_LIFE_ATTRIBUTE]?.S ?? '',
          },
    guardsPassed: guards.every((position) => reasons[position]?.Code === 'None'),
  }
}

/** A condition that the item's life attribute `name` is `:life` (`''`: an item from before lives has none). */
function isLife(name: string, life: string): string {
  return life === '' ? `attribute_not_exists(${name})` : `${name} = :life`
}

/**
 * The digest of an event's canonical content an ID guard keeps, to tell an
 * exact replay from a reused ID. SHA-256 in base64url, from Node's native
 * hash: a batch holds up to 3.8 MB, which the JavaScript one (the one ID
 * hash, `idHash`) digests ten times slower; the two give the same digest.
 */
export function contentDigest(content: string): string {
  return createHash('sha256').update(content).digest('base64url')
}
