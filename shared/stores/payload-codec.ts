import { gunzipSync, gzipSync } from 'node:zlib'
import { BatchTooLargeError, EventTooLargeError } from '../log/errors.ts'
import type { NewEvent } from '../log/event.ts'
import { MAX_APPEND_BYTES, MAX_EVENT_BYTES, MAX_EVENTS_PER_APPEND } from '../log/limits.ts'

/**
 * Payloads above this are gzipped when that makes them smaller: below it the
 * CPU costs more than the write units saved (DynamoDB bills per 1 KB written).
 */
const COMPRESS_ABOVE_BYTES = 4 * 1024

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

/** What an encoded payload adds to the request that writes it: binary travels as base64. */
function requestBytes(payload: EncodedPayload): number {
  return payload.kind === 'gzip' ? 4 * Math.ceil(payload.bytes / 3) : payload.bytes
}

export function decodePayload(encoded: { json?: string; gzip?: Uint8Array }): unknown {
  if (encoded.gzip !== undefined) return JSON.parse(gunzipSync(encoded.gzip).toString('utf8'))
  return JSON.parse(encoded.json ?? 'null')
}

/**
 * Encodes a batch and enforces the limits in `log/limits.ts`, so the memory
 * store refuses exactly what DynamoDB would and an app never learns a limit
 * in production.
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
    const names = Buffer.byteLength(event.id) + Buffer.byteLength(event.type)
    const size = payload.bytes + names
    if (size > MAX_EVENT_BYTES) throw new EventTooLargeError(event.id, size, MAX_EVENT_BYTES)
    total += requestBytes(payload) + names
    return payload
  })
  if (total > MAX_APPEND_BYTES) {
    throw new BatchTooLargeError(
      `An append holds at most ${MAX_APPEND_BYTES} bytes (DynamoDB transactions stop at 4 MB), counting each payload as it is sent: JSON, or gzip as base64; got ${total}. Split it into several appends`,
      MAX_APPEND_BYTES,
    )
  }
  return encoded
}
