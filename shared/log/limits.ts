/**
 * The log's limits: one source for every store, the HTTP edge and the docs
 * (docs/event-log.md, "Size limits, and why"). They come from DynamoDB, and the
 * memory store keeps them too, so the same batch gets the same answer on
 * every store and an app never learns a limit in production.
 */

/** IDs and session IDs become DynamoDB key parts; keep them short. */
export const MAX_ID_LENGTH = 256
export const MAX_TYPE_LENGTH = 128

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

/**
 * The bytes of one append, counted as the request to DynamoDB carries them:
 * a payload stored as JSON by its UTF-8 bytes, a gzipped one as base64 (the
 * wire form of a binary attribute), plus each event's ID and type. Counting
 * the request rather than the items keeps a batch of poorly compressible
 * payloads (random data as base64 shrinks only to ~75%) under the 4 MB
 * however the service measures it; the rest of the 4 MB is keys and guards.
 */
export const MAX_APPEND_BYTES = 3_800_000

/**
 * How deeply a payload may nest objects and arrays. JSON serialisation, the
 * content comparison of replays and structured cloning all recurse, and fail
 * somewhere past ~2,000 levels; real payloads (messages, tool input and
 * output) stay far below this.
 */
export const MAX_PAYLOAD_DEPTH = 128
