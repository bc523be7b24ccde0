/**
 * The single-table key design of the event log (see docs/event-log.md).
 *
 * | item           | pk               | sk                 |
 * | -------------- | ---------------- | ------------------ |
 * | session head   | `S#<sessionId>`  | `#HEAD`            |
 * | event          | `S#<sessionId>`  | `E#<index, 12 digits>` |
 * | erased event   | `S#<sessionId>`  | `E#<index, 12 digits>` (a tombstone) |
 * | reducer snapshot | `S#<sessionId>` | `R#<reducerName>`  |
 * | handler cursor | `S#<sessionId>`  | `C#<handlerName>`  |
 * | work claim     | `S#<sessionId>`  | `K#<claimKey>`     |
 * | event ID guard | `ID#<eventId>`   | `#ID`              |
 *
 * A session's items share a partition, so one Query reads a range of its log
 * in order. ID guards get a partition each, because IDs are unique across the
 * whole table and a condition can only look at the item it writes.
 */
export const PK = 'pk'
export const SK = 'sk'
/**
 * Epoch seconds; the table's TTL attribute. Claim items set it (a week after
 * their claim ends); with retention, the session head does (its last append
 * plus the retention period), and the rest of the session follows it; an
 * erase's tombstones do (a week after the erase).
 */
export const TTL_ATTRIBUTE = 'expiresAt'
/**
 * Marks an erased event's item: a tombstone with no content, holding the
 * erase's time in epoch milliseconds. An erase leaves one at each index the
 * session used and one past its end, so a step still streaming when its
 * session was erased finds every index it could write taken (a progress
 * append is one `PutItem`, which can check only its own item). Readers end
 * the log at the first one; an append of a session started over writes over
 * them.
 */
export const TOMBSTONE_ATTRIBUTE = 'erased'
/**
 * The session's life (`StoredEvent.life`): on the head item as `life`, on
 * each event item and snapshot as `l`. An item without it was written
 * before lives: of life `''` (a head), or of its head's life (an event).
 */
export const HEAD_LIFE_ATTRIBUTE = 'life'
export const LIFE_ATTRIBUTE = 'l'
/**
 * An event's schema version (`StoredEvent.version`) on its item, only when
 * above 1: an item without it is of version 1, as every item written
 * before versions is.
 */
export const VERSION_ATTRIBUTE = 'v'
/** How long a tombstone stays: longer than any writer lives (a Lambda, 15 minutes). */
export const TOMBSTONE_RETENTION_SECONDS = 7 * 24 * 3600
/** A claim item's expiry in epoch milliseconds (not the TTL attribute). */
export const CLAIM_UNTIL_ATTRIBUTE = 'until'
/** How long a claim item outlives its claim before DynamoDB's TTL deletes it. */
export const CLAIM_ITEM_RETENTION_SECONDS = 7 * 24 * 3600

const INDEX_DIGITS = 12

export const SESSION_PK_PREFIX = 'S#'
export const sessionPk = (sessionId: string): string => `${SESSION_PK_PREFIX}${sessionId}`
export const HEAD_SK = '#HEAD'
export const eventSk = (index: number): string => `E#${String(index).padStart(INDEX_DIGITS, '0')}`
export const LAST_EVENT_SK = eventSk(10 ** INDEX_DIGITS - 1)
export const snapshotSk = (reducerName: string): string => `R#${reducerName}`
export const cursorSk = (name: string): string => `C#${name}`
export const claimSk = (key: string): string => `K#${key}`
export const guardPk = (eventId: string): string => `ID#${eventId}`
export const GUARD_SK = '#ID'

/** The key of an item, as every request names it. */
export function itemKey(pk: string, sk: string): { [PK]: { S: string }; [SK]: { S: string } } {
  return { [PK]: { S: pk }, [SK]: { S: sk } }
}

/** The key of one of a session's items (its head, an event, a snapshot, a cursor, a claim). */
export const sessionItemKey = (sessionId: string, sk: string) => itemKey(sessionPk(sessionId), sk)
