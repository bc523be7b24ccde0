import type { NewEvent, StoredEvent } from './event.ts'

export interface AppendOptions {
  /**
   * The index the caller expects the session's log to be at (0 for an empty
   * log). When it is not, the append throws `AppendConflictError` and writes
   * nothing. Omit it to append at whatever the end is.
   */
  expectedIndex?: number
}

export interface AppendResult {
  /** The events as stored: on a replay, as they were first stored. */
  events: StoredEvent[]
  /** True when the batch was an exact replay and nothing was written. */
  replayed: boolean
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
}

/**
 * The port every event log adapter implements, and that one conformance suite
 * (`test/conformance/event-store.conformance.ts`) checks.
 *
 * Guarantees:
 * - `append` is atomic: every event of a call lands at consecutive indices
 *   or none does.
 * - Event IDs are unique across the store. An exact replay (same IDs, same
 *   content, same session, same batch) returns the first answer and writes
 *   nothing; any other reuse throws `PartialDuplicateBatchError`.
 * - Every event is checked against the store's size limit before anything is
 *   written.
 */
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
   * Yields the events after `after`, then every event appended later, until
   * `signal` aborts.
   */
  tail(sessionId: string, options?: TailOptions): AsyncIterable<StoredEvent>
  /**
   * The stored snapshot of a reducer, or undefined when there is none or it
   * cannot be decoded: a snapshot is a cache, and the caller rebuilds it.
   */
  readSnapshot(sessionId: string, reducerName: string): Promise<StoredSnapshot | undefined>
  /** Stores a snapshot unless a newer one (higher index) is already stored. */
  writeSnapshot(sessionId: string, reducerName: string, snapshot: StoredSnapshot): Promise<void>
}
