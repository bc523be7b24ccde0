/**
 * An event as a caller submits it. `id` is optional on submission: the log
 * assigns a random one when it is missing, but a caller that wants a retried
 * submission to replay instead of duplicating must choose the ID itself.
 */
export interface EventInput<Type extends string = string, Payload = unknown> {
  id?: string
  type: Type
  payload: Payload
}

/** An event whose ID is fixed: what a store appends. */
export interface NewEvent<Type extends string = string, Payload = unknown> {
  id: string
  type: Type
  payload: Payload
  /**
   * The schema version of the payload; absent means 1. The log stamps the
   * contract's current version of a `versionedEvent()` type; stores keep it.
   */
  version?: number
}

/**
 * An event as the log holds it: the submitted `{ id, type, payload }` plus the
 * session it belongs to, the session's life it was written in, its position
 * in that life's log (1, 2, 3, ..., gapless) and the time it was stored
 * (milliseconds since the epoch).
 */
export interface StoredEvent<Type extends string = string, Payload = unknown> {
  id: string
  type: Type
  payload: Payload
  sessionId: string
  /**
   * The session's life: the store starts a new one whenever an append
   * creates the session, at its first event and again after every erase or
   * retention expiry (when the log starts over at index 1). What a process
   * remembers of a session (its indices, its state) is of one life, and an
   * append that names it (`AppendOptions.life`) lands only in that life.
   * `''` for a log written before a2-aws recorded lives. See
   * docs/event-log.md, "A session's lives".
   */
  life: string
  index: number
  timestamp: number
  /**
   * The schema version the payload was written with; absent means 1 (a
   * plain zod schema, or an event written before versions). Reads and folds
   * through the log see events upcast to the contract's current version
   * (`upcastEvent`); the stored event keeps the version it was written with.
   * See docs/event-log.md, "Changing an event's schema".
   */
  version?: number
}

/**
 * A schema version as events carry it: a field only above 1 (absent means
 * 1), so an event of a plain schema looks as it did before versions.
 */
export function versionField(version: number | undefined): { version?: number } {
  return version !== undefined && Number.isSafeInteger(version) && version > 1 ? { version } : {}
}

/**
 * Event IDs starting with this prefix belong to A2 itself (`a2.ai:` for the AI
 * protocol). Callers may not use them, so an ID A2 derives can never collide
 * with one a caller chose.
 */
const RESERVED_ID_PREFIX = 'a2.'

export function isReservedId(id: string): boolean {
  return id.startsWith(RESERVED_ID_PREFIX)
}
