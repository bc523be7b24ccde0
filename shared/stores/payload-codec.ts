import { gunzipSync, gzipSync } from 'node:zlib'
import { BatchTooLargeError, EventTooLargeError } from '../log/errors.ts'
import type { NewEvent } from '../log/event.ts'

/**
 * DynamoDB items stop at 400 KB (409,600 bytes, names and values together).
 * An event item also holds its keys, ID, type and timestamp, so the encoded
 * payload plus ID and type must stay under this, leaving ~20 KB of headroom.
 */
export const MAX_EVENT_BYTES = 380 * 1024

/**
 * A transaction carries at most 100 items and 4 MB. One append writes the
 * session head, an event item and an ID guard per event, and may move a
 * handler cursor and check a claim: 2 x 48 + 3 = 99.
 */
export const MAX_EVENTS_PER_APPEND = 48
export const MAX_APPEND_BYTES = 3_800_000

/**
 * Payloads above this are gzipped when that makes them smaller: below it the
 * CPU costs more than the write units saved (DynamoDB bills per 1 KB written).
 */
export const COMPRESS_ABOVE_BYTES = 4 * 1024

export type EncodedPayload =
  | { kind: 'json'; json: string; bytes: number }
  | { kind: 'gzip'; data: Uint8Array; bytes: number }

export function encodePayload(payload: unknown): EncodedPayload {
  const json = JSON.stringify(payload ?? null)
  const bytes = Buffer.byteLength(json, 'utf8')
  if (bytes <= COMPRESS_ABOVE_BYTES) return { kind: 'json', json, bytes }
  const data = gzipSync(json)
  return data.byteLength < bytes
    ? { kind: 'gzip', data, bytes: data.byteLength }
    : { kind: 'json', json, bytes }
}

export function decodePayload(encoded: { json?: string; gzip?: Uint8Array }): unknown {
  if (encoded.gzip !== undefined) return JSON.parse(gunzipSync(encoded.gzip).toString('utf8'))
  return JSON.parse(encoded.json ?? 'null')
}

/**
 * Encodes a batch and enforces the limits above, so the memory store refuses
 * exactly what DynamoDB would and an app never learns the limit in production.
 */
export function encodeBatch(events: readonly NewEvent[]): EncodedPayload[] {
  if (events.length > MAX_EVENTS_PER_APPEND) {
    throw new BatchTooLargeError(
      `An append holds at most ${MAX_EVENTS_PER_APPEND} events (one DynamoDB transaction); got ${events.length}. Split it into several appends`,
    )
  }
  let total = 0
  const encoded = events.map((event) => {
    const payload = encodePayload(event.payload)
    const size = payload.bytes + Buffer.byteLength(event.id) + Buffer.byteLength(event.type)
    if (size > MAX_EVENT_BYTES) throw new EventTooLargeError(event.id, size, MAX_EVENT_BYTES)
    total += size
    return payload
  })
  if (total > MAX_APPEND_BYTES) {
    throw new BatchTooLargeError(
      `An append holds at most ${MAX_APPEND_BYTES} bytes (DynamoDB transactions stop at 4 MB); got ${total}. Split it into several appends`,
    )
  }
  return encoded
}
