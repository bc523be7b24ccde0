import type { AttributeValue } from '@aws-sdk/client-dynamodb'
import type { IdGuard } from '../../log/duplicate-batch.ts'
import { type NewEvent, type StoredEvent, versionField } from '../../log/event.ts'
import { decodePayload, type EncodedPayload } from '../payload-codec.ts'
import {
  eventSk,
  GUARD_SK,
  guardPk,
  itemKey,
  LIFE_ATTRIBUTE,
  PK,
  SK,
  sessionItemKey,
  TOMBSTONE_ATTRIBUTE,
  TOMBSTONE_RETENTION_SECONDS,
  TTL_ATTRIBUTE,
  VERSION_ATTRIBUTE,
} from './table-keys.ts'

type Item = Record<string, AttributeValue>

/**
 * Event item: `p` holds the payload as JSON, or `pz` as gzipped JSON; `l`
 * its life; `v` its schema version, when above 1.
 */
export function eventItem(
  sessionId: string,
  index: number,
  timestamp: number,
  event: NewEvent,
  payload: EncodedPayload,
  life: string,
): Item {
  const { version } = versionField(event.version)
  return {
    ...sessionItemKey(sessionId, eventSk(index)),
    sid: { S: sessionId },
    ...(life === '' ? {} : { [LIFE_ATTRIBUTE]: { S: life } }),
    i: { N: String(index) },
    id: { S: event.id },
    t: { S: event.type },
    ts: { N: String(timestamp) },
    ...(version === undefined ? {} : { [VERSION_ATTRIBUTE]: { N: String(version) } }),
    ...(payload.kind === 'gzip' ? { pz: { B: payload.data } } : { p: { S: payload.json } }),
  }
}

/** The content-free item an erase leaves at an index (see `TOMBSTONE_ATTRIBUTE`). */
export function tombstoneItem(sessionId: string, index: number, erasedAt: number): Item {
  return {
    ...sessionItemKey(sessionId, eventSk(index)),
    [TOMBSTONE_ATTRIBUTE]: { N: String(erasedAt) },
    [TTL_ATTRIBUTE]: { N: String(Math.ceil(erasedAt / 1000) + TOMBSTONE_RETENTION_SECONDS) },
  }
}

/** Whether an event item is an erase's tombstone, not an event. */
export const isTombstone = (item: Item): boolean => item[TOMBSTONE_ATTRIBUTE] !== undefined

/** An event item's index, from its sort key (a tombstone has no other attribute to say it). */
export const indexOfItem = (item: Item): number => Number((item[SK]?.S ?? '').slice(2))

/** An event item's life: its own, or undefined for one written before lives (its head's life). */
export const lifeOfItem = (item: Item): string | undefined => item[LIFE_ATTRIBUTE]?.S

/** An event item as the log holds it, in `life` (the item's own, or its head's when it has none). */
export function storedEventFromItem(item: Item, life: string): StoredEvent {
  return {
    id: item.id?.S as string,
    type: item.t?.S as string,
    payload: decodePayload({ json: item.p?.S, gzip: item.pz?.B }),
    sessionId: item.sid?.S as string,
    life,
    index: Number(item.i?.N),
    timestamp: Number(item.ts?.N),
    ...versionField(item[VERSION_ATTRIBUTE] ? Number(item[VERSION_ATTRIBUTE].N) : undefined),
  }
}

export function guardItem(guard: IdGuard): Item {
  return {
    ...itemKey(guardPk(guard.eventId), GUARD_SK),
    sid: { S: guard.sessionId },
    i: { N: String(guard.index) },
    c: { S: guard.content },
    bf: { N: String(guard.batchFirstIndex) },
    bn: { N: String(guard.batchSize) },
  }
}

export function guardFromItem(item: Item): IdGuard {
  return {
    eventId: (item[PK]?.S ?? '').slice(guardPk('').length),
    sessionId: item.sid?.S as string,
    index: Number(item.i?.N),
    content: item.c?.S as string,
    batchFirstIndex: Number(item.bf?.N),
    batchSize: Number(item.bn?.N),
  }
}
