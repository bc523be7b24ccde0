import type { NewEvent, StoredEvent } from './event.ts'

export interface AppendOptions {
  /**
   * The index the caller expects the session's log to be at (0 for an empty
   * log). When it is not, the append throws `AppendConflictError` and writes
   * nothing. Omit it to append at whatever the end is.
   */
  expectedIndex?: number
  /**
   * Appends only in this life of the session (`StoredEvent.life`, the life
   * of what the caller read): when the session was erased or expired since
   * (and maybe started over in a new life), throws `LifeEndedError` and
   * writes nothing. `expectedIndex` is then an index of this life. Without
   * it, the append lands in whatever life the session is in, or starts one.
   */
  life?: string
  /**
   * Moves a handler's cursor from `from` to `to` in the same transaction, so
   * a handler's output and its progress through the log commit together.
   * When the cursor is not at `from`, throws `CursorConflictError` and writes
   * nothing. With no events, the append only moves the cursor.
   */
  cursor?: { name: string; from: number; to: number }
  /**
   * Writes only while `claim` is held at `attempt`: a superseded attempt's
   * late writes throw `FencedOutError` and write nothing.
   */
  fence?: { claim: string; attempt: number }
  /**
   * `false`: the events' IDs are neither checked against earlier events nor
   * recorded for later ones, which saves an item per event (on DynamoDB, half
   * an event's write units). Only for IDs nobody else writes (A2's streamed
   * progress and a step's or a tool call's later events, derived from their
   * attempt, and the controller's decisions, a fold of the log up to the
   * expected index), and only with
   * `expectedIndex`, which then does the guards' job: a repeated append (after
   * an unknown outcome) finds its events at that index, by their IDs, and is
   * answered as a replay (`replayed: true`, nothing written twice); other
   * events there are `AppendConflictError`. Without `expectedIndex` it
   * throws `InvalidAppendError`. Default `true`.
   *
   * A number `n` (with `expectedIndex`): only the first `n` events get
   * guards, the rest none. For a caller's own events followed by A2's
   * decisions on them in the same batch (the POST that decides a plain
   * message: its events may be sent again at another index, the decisions
   * derive from the log up to `expectedIndex`). The batch sent again (an
   * unknown outcome) is answered as a replay of the whole batch when it
   * landed whole; its guarded events sent again on their own, or found
   * stored by another append, as a replay of those `n` events alone.
   */
  guardIds?: boolean | number
  /**
   * A step's streamed progress (with `guardIds: false` and `expectedIndex`):
   * the store may write it without moving its record of the session's head,
   * so `restingHead()` may be behind it until the next append without this
   * flag (on DynamoDB one `PutItem` of the event instead of a transaction
   * with the head item). For events that matter only while a step streams
   * and are followed by one that ends the step.
   */
  progress?: boolean
  /**
   * Stores the events with this timestamp (epoch ms) instead of the store's
   * clock: for imports (`importSession`), which keep the times the events
   * first had, since state folds them.
   */
  timestamp?: number
  /**
   * Retention: the whole session (every item kind) may be expired once this
   * many milliseconds pass with no append to it. Each append that carries it
   * moves the session's expiry to its time plus this; an idle session goes
   * whole, never an active one's items (see docs/event-log.md, Retention).
   */
  retainForMs?: number
}

/** A claim on a piece of work (a generation, a tool call): who holds it, until when. */
export interface Claim {
  key: string
  /** 1 for the first holder; each takeover after expiry adds one. */
  attempt: number
  /** Epoch milliseconds after which another worker may take it over. */
  expiresAt: number
  /**
   * How the previous attempt ended, when there was one: `released` when it
   * gave the work back (it failed and wants a retry), `revoked` when A2 took
   * it away (Stop, Pause now), `expired` when its holder stopped renewing
   * (a crash or a timeout: the work may have partly run).
   */
  previous?: 'released' | 'revoked' | 'expired'
}

export interface ClaimOptions {
  /** How long the claim lasts unless renewed. */
  ttlMs: number
}

export interface AppendResult {
  /** The events as stored: on a replay, as they were first stored. */
  events: StoredEvent[]
  /** True when the batch was an exact replay and nothing was written. */
  replayed: boolean
  /**
   * The write units the append cost, where the store can tell (the
   * DynamoDB store estimates them from its items' sizes; see
   * `transactionWriteUnits`). Absent on a replay and in the memory store.
   */
  writeUnits?: number
}

export interface ReadOptions {
  /** Return events with an index greater than this (default 0: from the start). */
  after?: number
  /** Return at most this many events. */
  limit?: number
}

export interface TailOptions {
  after?: number
  /** Ends the iteration; the iterator then returns without throwing. */
  signal?: AbortSignal
}

/** A reducer snapshot as stored. `state` is whatever the reducer produced. */
export interface StoredSnapshot {
  index: number
  state: unknown
  /**
   * The session's life the snapshot folds (the `life` of its event at
   * `index`): stored only while the session is in that life, and trusted
   * only where the event at `index` is of it. Undefined: a log written
   * before lives (life `''`).
   */
  life?: string
}

/**
 * What `erase` removed from the store, by item kind. An erase of a session
 * that is already gone removes nothing: every count is 0.
 */
export interface EraseReceipt {
  sessionId: string
  /** Events of the session's log. */
  events: number
  /** The session head (the log's last index): 0 or 1. */
  heads: number
  /** Reducer snapshots. */
  snapshots: number
  /** Handler cursors. */
  cursors: number
  /** Work claims (generations, tool calls). */
  claims: number
  /** The ID guards of the session's events (unguarded events have none). */
  idGuards: number
}

/** The item kinds an `EraseReceipt` counts, in the order receipts print them. */
export const ERASED_ITEM_KINDS = [
  'events',
  'heads',
  'snapshots',
  'cursors',
  'claims',
  'idGuards',
] as const satisfies readonly (keyof EraseReceipt)[]

/**
 * The port every event log adapter implements, and that one conformance suite
 * (`shared/testing/event-store-conformance.ts`, `a2-aws/test`) checks.
 *
 * Guarantees:
 * - `append` is atomic: every event of a call lands at consecutive indices
 *   or none does.
 * - Event IDs are unique across the store. An exact replay (same IDs, same
 *   content, same session, same batch) returns the first answer and writes
 *   nothing; any other reuse throws `PartialDuplicateBatchError`. Events
 *   appended with `guardIds: false` are the exception: their IDs are the
 *   caller's to keep unique.
 * - Every event is checked against the store's size limit before anything is
 *   written.
 * - A session has lives: the first append to an empty session (new, erased
 *   or expired) starts one, with an ID of the store's, and every event is
 *   stored with it. An append naming a life lands only in that life
 *   (`LifeEndedError` otherwise); what one store instance remembers of a
 *   session (hints of where its log ends) holds only in the life it saw.
 */
/** What a reader at rest checks for news: the head, and the life it is of (none before the first event, or on a legacy log). */
/** What an erase that found nothing of its session (or of the life it meant) removed. */
export const nothingErased = (sessionId: string): EraseReceipt => ({
  sessionId,
  events: 0,
  heads: 0,
  snapshots: 0,
  cursors: 0,
  claims: 0,
  idGuards: 0,
})

export interface RestingHead {
  index: number
  life?: string
}

export interface EventStore {
  append(
    sessionId: string,
    events: readonly NewEvent[],
    options?: AppendOptions,
  ): Promise<AppendResult>
  read(sessionId: string, options?: ReadOptions): Promise<StoredEvent[]>
  /** The index of the session's last event, 0 when it has none. */
  head(sessionId: string): Promise<number>
  /**
   * The head a reader at rest checks for news (`GET ?head`): `head()`, or,
   * where that is cheaper, the head as the last append that was not a
   * step's progress (`progress: true`) left it, which the progress may be
   * past while the step streams. A reader rests only while nothing is at
   * work, and whatever wakes a session is such an append, so the news is
   * seen. On DynamoDB one read of the head item, where `head()` is two.
   * With the head, its life: a reader that applied as many events of a life
   * since erased is reading another log. Optional: without it, `head()`
   * and a read of the last event.
   */
  restingHead?(sessionId: string): Promise<RestingHead>
  /**
   * Yields the events after `after`, then every event appended later, until
   * `signal` aborts.
   */
  tail(sessionId: string, options?: TailOptions): AsyncIterable<StoredEvent>
  /**
   * The stored snapshot of a reducer, or undefined when there is none or it
   * cannot be decoded: a snapshot is a cache, and the caller rebuilds it.
   */
  readSnapshot(sessionId: string, reducerName: string): Promise<StoredSnapshot | undefined>
  /**
   * Stores a snapshot unless a newer one (higher index) is already stored,
   * and only while the session is in the snapshot's life and its log reaches
   * its index: a write that comes after an erase (or races one, or is of an
   * ended life) stores nothing, so no state outlives its life.
   */
  writeSnapshot(sessionId: string, reducerName: string, snapshot: StoredSnapshot): Promise<void>
  /** A handler's position in the session's log: the last index it committed (0: none). */
  readCursor(sessionId: string, name: string): Promise<number>
  /**
   * Takes the claim when nobody holds it or its holder's time ran out, with
   * the next attempt number; throws `ClaimHeldError` while it is held.
   */
  claim(sessionId: string, key: string, options: ClaimOptions): Promise<Claim>
  /** Extends a held claim; throws `FencedOutError` when the attempt was superseded. */
  renewClaim(sessionId: string, claim: Claim, options: ClaimOptions): Promise<Claim>
  /** The claim's current state, when anyone ever took it. */
  readClaim(sessionId: string, key: string): Promise<Claim | undefined>
  /** Gives a held claim back for a retry; a no-op when the attempt was superseded. */
  releaseClaim(sessionId: string, claim: Claim): Promise<void>
  /**
   * Takes the claim away from whoever holds it, so the holder's renewals and
   * fenced writes fail from now on (and it aborts). The next `claim` gets a
   * new attempt.
   */
  revokeClaim(sessionId: string, key: string): Promise<void>
  /**
   * Removes the session from the store, every item kind (events, head,
   * snapshots, cursors, claims, ID guards), and says what it removed. The
   * session is then empty, as if it never existed: its event IDs may be
   * used again, and an append starts it over at index 1. Idempotent: erasing
   * an erased session removes nothing. Held claims are removed too, so an
   * attempt still running is fenced out of its next write. With `life`, only
   * that life: once it ended (erased, expired, started over) nothing is
   * removed, so an erase a stalled server delivers late leaves the session's
   * next life alone.
   */
  erase(sessionId: string, options?: { life?: string }): Promise<EraseReceipt>
}
