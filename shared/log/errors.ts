import { A2Error } from './error-brand.ts'
import type { ErrorStatuses } from './error-statuses.ts'

/**
 * The codes of the log's own errors: what a store or the log refuses to
 * write or read. Adapters translate their own failures (a DynamoDB
 * cancellation reason, a zod issue) into these; the layers above add their
 * codes beside their throwers (see `A2Codes`).
 */
export type A2ErrorCode =
  | 'INVALID_EVENT'
  | 'RESERVED_EVENT_ID'
  | 'APPEND_CONFLICT'
  | 'APPEND_CONTENDED'
  | 'ERASE_CONTENDED'
  | 'PARTIAL_DUPLICATE_BATCH'
  | 'EVENT_TOO_LARGE'
  | 'BATCH_TOO_LARGE'
  | 'INVALID_SESSION_ID'
  | 'CURSOR_CONFLICT'
  | 'FENCED_OUT'
  | 'LIFE_ENDED'
  | 'CLAIM_HELD'
  | 'INVALID_APPEND'
  | 'SESSION_NOT_EMPTY'
  | 'INVALID_EXPORT'
  | 'UPCAST_FAILED'

/**
 * The details of the codes that have some: what an edge may tell a caller
 * (the HTTP edge sends them as `details`), and what code that recognises
 * the error by its code reads. The rest of a class's fields stay its own.
 */
interface LogCodeDetails {
  INVALID_EVENT: { eventType: string; path: readonly (string | number)[] }
  RESERVED_EVENT_ID: { eventId: string }
  APPEND_CONFLICT: { expectedIndex: number; actualIndex?: number }
  PARTIAL_DUPLICATE_BATCH: { duplicateIds: readonly string[] }
  EVENT_TOO_LARGE: { limitBytes: number; eventId: string }
  /** Undefined when the batch was refused for its count, not its bytes. */
  BATCH_TOO_LARGE: { limitBytes: number } | undefined
  /** `currentLife`: the session's life now, absent when it has none. */
  LIFE_ENDED: { currentLife?: string }
  /** When to look again: a dead holder's claim has expired by then. */
  CLAIM_HELD: { retryAt: number }
}

declare module './error-brand.ts' {
  interface A2Codes
    extends Record<Exclude<A2ErrorCode, keyof LogCodeDetails>, undefined>,
      LogCodeDetails {}
}

/**
 * The HTTP answer to each of the log's codes (the endpoint over a log
 * answers these; the layers above add theirs).
 */
export const LOG_ERROR_STATUSES: ErrorStatuses<A2ErrorCode> = {
  INVALID_EVENT: 400,
  RESERVED_EVENT_ID: 400,
  INVALID_SESSION_ID: 400,
  APPEND_CONFLICT: 409,
  // Only an append with an expected index conflicts; one without it waited
  // its turn and ran out of time, which a retry can fix.
  APPEND_CONTENDED: 503,
  // Writes kept landing under an erase; once the session's work stops, erasing again finishes it.
  ERASE_CONTENDED: 503,
  INVALID_APPEND: 500,
  PARTIAL_DUPLICATE_BATCH: 409,
  EVENT_TOO_LARGE: 413,
  BATCH_TOO_LARGE: 413,
  CURSOR_CONFLICT: 409,
  FENCED_OUT: 409,
  LIFE_ENDED: 409,
  CLAIM_HELD: 409,
  SESSION_NOT_EMPTY: 409,
  INVALID_EXPORT: 400,
  // The log holds an event today's code cannot read: the code's to fix.
  UPCAST_FAILED: 500,
}

/** A payload failed its contract's schema, or the event's shape is wrong. */
export class InvalidEventError extends A2Error<'INVALID_EVENT'> {
  readonly eventType: string
  /**
   * Path of the first failing field, as zod reports it: inside the payload,
   * or inside the event (`['id']`) when the envelope is wrong.
   */
  readonly path: readonly (string | number)[]
  readonly issues: readonly { path: readonly (string | number)[]; message: string }[]

  constructor(
    eventType: string,
    issues: readonly { path: readonly (string | number)[]; message: string }[],
    /** What the paths start from: the payload (a schema issue) or the event (its envelope). */
    scope: 'payload' | 'event' = 'payload',
  ) {
    const first = issues[0]
    const prefix = scope === 'payload' ? 'payload.' : ''
    const where = first && first.path.length > 0 ? ` at ${prefix}${first.path.join('.')}` : ''
    const path = first?.path ?? []
    super('INVALID_EVENT', `Invalid "${eventType}" event${where}: ${first?.message ?? 'invalid'}`, {
      details: { eventType, path },
    })
    this.name = 'InvalidEventError'
    this.eventType = eventType
    this.path = path
    this.issues = issues
  }
}

export class ReservedEventIdError extends A2Error<'RESERVED_EVENT_ID'> {
  readonly eventId: string

  constructor(eventId: string) {
    super(
      'RESERVED_EVENT_ID',
      `Event ID "${eventId}" uses the reserved "a2." prefix; choose another ID`,
      { details: { eventId } },
    )
    this.name = 'ReservedEventIdError'
    this.eventId = eventId
  }
}

/** The caller named the index it expected the log to be at, and it was not. */
export class AppendConflictError extends A2Error<'APPEND_CONFLICT'> {
  readonly sessionId: string
  readonly expectedIndex: number
  /** The log's index when the conflict was seen, when the store knows it. */
  readonly actualIndex: number | undefined

  constructor(sessionId: string, expectedIndex: number, actualIndex?: number) {
    const actual = actualIndex === undefined ? '' : `, but it is at ${actualIndex}`
    super(
      'APPEND_CONFLICT',
      `Session "${sessionId}" was expected to be at index ${expectedIndex}${actual}; nothing was written`,
      { details: { expectedIndex, ...(actualIndex === undefined ? {} : { actualIndex }) } },
    )
    this.name = 'AppendConflictError'
    this.sessionId = sessionId
    this.expectedIndex = expectedIndex
    this.actualIndex = actualIndex
  }
}

/**
 * An append without an expected index kept losing the race for the session's
 * next index to concurrent appenders until its retry window closed. Nothing
 * was written; sending the same batch again is safe (it replays if it landed).
 */
export class AppendContendedError extends A2Error<'APPEND_CONTENDED'> {
  readonly sessionId: string
  readonly retriedMs: number

  constructor(sessionId: string, retriedMs: number) {
    super(
      'APPEND_CONTENDED',
      `Session "${sessionId}" had too many concurrent appends: retried for ${retriedMs} ms and wrote nothing. Try again`,
    )
    this.name = 'AppendContendedError'
    this.sessionId = sessionId
    this.retriedMs = retriedMs
  }
}

/**
 * An erase kept meeting new writes to the session (a step still streaming,
 * appends moving the head) for all of its rounds. What it erased stays
 * erased, and its tombstones hold every index it saw; erasing again once the
 * session's work has stopped finishes it (erase is idempotent).
 */
export class EraseContendedError extends A2Error<'ERASE_CONTENDED'> {
  readonly sessionId: string
  readonly rounds: number

  constructor(sessionId: string, rounds: number) {
    super(
      'ERASE_CONTENDED',
      `Session "${sessionId}" kept being written while it was erased (${rounds} rounds); what was erased stays erased. Stop its work and erase it again`,
    )
    this.name = 'EraseContendedError'
    this.sessionId = sessionId
    this.rounds = rounds
  }
}

/**
 * Some IDs of the batch are already stored, but the batch is not an exact
 * replay of the batch that stored them: other content, another session, a
 * different set of events or a different order.
 */
export class PartialDuplicateBatchError extends A2Error<'PARTIAL_DUPLICATE_BATCH'> {
  readonly duplicateIds: readonly string[]

  constructor(duplicateIds: readonly string[], reason: string) {
    super(
      'PARTIAL_DUPLICATE_BATCH',
      `Event IDs already stored (${duplicateIds.join(', ')}) ${reason}; nothing was written. Replay the exact batch, or use fresh IDs`,
      { details: { duplicateIds } },
    )
    this.name = 'PartialDuplicateBatchError'
    this.duplicateIds = duplicateIds
  }
}

export class EventTooLargeError extends A2Error<'EVENT_TOO_LARGE'> {
  readonly eventId: string
  readonly sizeBytes: number
  readonly limitBytes: number

  constructor(eventId: string, sizeBytes: number, limitBytes: number) {
    super(
      'EVENT_TOO_LARGE',
      `Event "${eventId}" is ${sizeBytes} bytes after compression; the limit is ${limitBytes} bytes (DynamoDB items stop at 400 KB). Store large content elsewhere and put a reference in the event`,
      { details: { limitBytes, eventId } },
    )
    this.name = 'EventTooLargeError'
    this.eventId = eventId
    this.sizeBytes = sizeBytes
    this.limitBytes = limitBytes
  }
}

export class BatchTooLargeError extends A2Error<'BATCH_TOO_LARGE'> {
  /** The byte limit the batch passed, when it was refused for its bytes. */
  readonly limitBytes: number | undefined

  constructor(message: string, limitBytes?: number) {
    super('BATCH_TOO_LARGE', message, {
      details: limitBytes === undefined ? undefined : { limitBytes },
    })
    this.name = 'BatchTooLargeError'
    this.limitBytes = limitBytes
  }
}

export class InvalidSessionIdError extends A2Error<'INVALID_SESSION_ID'> {
  constructor(message: string) {
    super('INVALID_SESSION_ID', message)
    this.name = 'InvalidSessionIdError'
  }
}

/** Another worker moved the handler's cursor first: its work was already committed. */
export class CursorConflictError extends A2Error<'CURSOR_CONFLICT'> {
  readonly cursor: string
  readonly expected: number
  readonly actual: number | undefined

  constructor(sessionId: string, cursor: string, expected: number, actual?: number) {
    super(
      'CURSOR_CONFLICT',
      `Cursor "${cursor}" of session "${sessionId}" is not at ${expected}${actual === undefined ? '' : ` but at ${actual}`}; nothing was written`,
    )
    this.name = 'CursorConflictError'
    this.cursor = cursor
    this.expected = expected
    this.actual = actual
  }
}

/** A newer attempt took the claim over; this attempt's writes are refused. */
export class FencedOutError extends A2Error<'FENCED_OUT'> {
  readonly claim: string
  readonly attempt: number

  constructor(sessionId: string, claim: string, attempt: number) {
    super(
      'FENCED_OUT',
      `Attempt ${attempt} no longer holds "${claim}" in session "${sessionId}"; a newer attempt superseded it and nothing was written`,
    )
    this.name = 'FencedOutError'
    this.claim = claim
    this.attempt = attempt
  }
}

/**
 * An append named the session's life it was for (`AppendOptions.life`), and
 * that life is over: the session was erased or expired since, and may have
 * started over in a new life. Nothing was written. What the caller
 * remembers of the session (its state, its indices, its claims) is of the
 * ended life; work for it is over, and the session's new life, if any, has
 * its own.
 */
export class LifeEndedError extends A2Error<'LIFE_ENDED'> {
  readonly sessionId: string
  /** The life the append was for. */
  readonly life: string
  /** The session's life now, undefined when it has none (erased, expired, never written). */
  readonly currentLife: string | undefined

  constructor(sessionId: string, life: string, currentLife: string | undefined) {
    const now =
      currentLife === undefined
        ? 'it has no events now'
        : `it has started over as life "${currentLife}"`
    super(
      'LIFE_ENDED',
      `Session "${sessionId}" is no longer in life "${life}" (it was erased or expired, and ${now}); nothing was written`,
      { details: currentLife === undefined ? {} : { currentLife } },
    )
    this.name = 'LifeEndedError'
    this.sessionId = sessionId
    this.life = life
    this.currentLife = currentLife
  }
}

/** The work is claimed by a live attempt; try again after `expiresAt`. */
export class ClaimHeldError extends A2Error<'CLAIM_HELD'> {
  readonly claim: string
  readonly attempt: number
  readonly expiresAt: number

  constructor(sessionId: string, claim: string, attempt: number, expiresAt: number) {
    super(
      'CLAIM_HELD',
      `"${claim}" in session "${sessionId}" is held by attempt ${attempt} until ${new Date(expiresAt).toISOString()}`,
      { details: { retryAt: expiresAt } },
    )
    this.name = 'ClaimHeldError'
    this.claim = claim
    this.attempt = attempt
    this.expiresAt = expiresAt
  }

  /** When to look again: a dead holder's claim has expired by then (`details.retryAt`). */
  get retryAt(): number {
    return this.details.retryAt
  }
}

/** Append options that cannot work together (`guardIds: false` without `expectedIndex`). */
class InvalidAppendError extends A2Error<'INVALID_APPEND'> {
  constructor(message: string) {
    super('INVALID_APPEND', message)
    this.name = 'InvalidAppendError'
  }
}

/** What an unguarded append needs: the index that stands in for its ID guards. */
export function checkUnguardedAppend(options: {
  guardIds?: boolean | number
  expectedIndex?: number
}): void {
  const { guardIds } = options
  if (typeof guardIds === 'number' && (!Number.isSafeInteger(guardIds) || guardIds < 0)) {
    throw new InvalidAppendError(
      `guardIds must be true, false or how many leading events get guards, not ${guardIds}`,
    )
  }
  if (guardIds !== undefined && guardIds !== true && options.expectedIndex === undefined) {
    throw new InvalidAppendError(
      `An append with guardIds: ${guardIds} needs expectedIndex: it is what keeps a repeated append from writing its unguarded events twice`,
    )
  }
}

/** How many of a batch's leading events get ID guards (`AppendOptions.guardIds`). */
export function guardedCount(guardIds: boolean | number | undefined, length: number): number {
  if (guardIds === false) return 0
  if (guardIds === undefined || guardIds === true) return length
  return Math.min(guardIds, length)
}

/** An import refused because the target session already has events. */
export class SessionNotEmptyError extends A2Error<'SESSION_NOT_EMPTY'> {
  readonly sessionId: string
  readonly head: number

  constructor(sessionId: string, head: number) {
    super(
      'SESSION_NOT_EMPTY',
      `Session "${sessionId}" already has ${head} events: import only into an empty session`,
    )
    this.name = 'SessionNotEmptyError'
    this.sessionId = sessionId
    this.head = head
  }
}

/**
 * A session export (JSONL) that cannot be read: `line` is 1-based; `file`
 * names it when it was read from one.
 */
export class InvalidExportError extends A2Error<'INVALID_EXPORT'> {
  readonly line: number
  /** What is wrong at that line. */
  readonly reason: string
  readonly file?: string

  constructor(line: number, reason: string, file?: string) {
    super(
      'INVALID_EXPORT',
      `Invalid session export ${file === undefined ? '' : `${file} `}at line ${line}: ${reason}`,
    )
    this.name = 'InvalidExportError'
    this.line = line
    this.reason = reason
    if (file !== undefined) this.file = file
  }
}

/**
 * An event of an older schema version could not be brought to the current
 * one when the log was read or folded: a version has no upcaster, an
 * upcaster threw, or its output failed the current schema (`path`, `issues`).
 * The stored event is untouched; the code's upcasters need fixing.
 */
export class UpcastError extends A2Error<'UPCAST_FAILED'> {
  readonly sessionId: string
  readonly index: number
  readonly eventType: string
  /** The version the event was written with, and the version the code reads. */
  readonly fromVersion: number
  readonly toVersion: number
  /** Path of the first failing field of the upcast payload; `[]` when no schema check failed. */
  readonly path: readonly (string | number)[]
  readonly issues: readonly { path: readonly (string | number)[]; message: string }[]

  constructor(
    event: { sessionId: string; index: number; type: string },
    versions: { from: number; to: number },
    reason: string,
    issues: readonly { path: readonly (string | number)[]; message: string }[] = [],
  ) {
    super(
      'UPCAST_FAILED',
      `Cannot upcast "${event.type}" event ${event.index} of session "${event.sessionId}" from version ${versions.from} to ${versions.to}: ${reason}`,
    )
    this.name = 'UpcastError'
    this.sessionId = event.sessionId
    this.index = event.index
    this.eventType = event.type
    this.fromVersion = versions.from
    this.toVersion = versions.to
    this.path = issues[0]?.path ?? []
    this.issues = issues
  }
}
