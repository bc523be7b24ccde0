import type { Contract } from './contract.ts'
import { ReservedEventIdError } from './errors.ts'
import { type EventInput, isReservedId, type NewEvent, type StoredEvent } from './event.ts'
import { checkEnvelope, checkSessionId } from './event-envelope.ts'
import type { AppendOptions, EventStore, ReadOptions, TailOptions } from './event-store.ts'
import { foldEvents, type Reducer, type StateSnapshot } from './reducer.ts'

export interface EventLogOptions {
  store: EventStore
  /** Validates appends of the event types it declares. */
  contract?: Pick<Contract, 'validate'>
  /**
   * Checks an append's events once more, after the contract's validation
   * and before anything is written: for checks that must wait, such as an
   * agent's hold of messages to the AI SDK's UI message schemas (whose
   * validation is asynchronous). It throws to refuse the append, typically
   * an `InvalidEventError`; nothing is written then.
   */
  check?: (events: readonly NewEvent[]) => Promise<void>
  /** Fills in missing event IDs; defaults to `crypto.randomUUID()`. */
  generateId?: () => string
  /**
   * Store a new snapshot once `state()` had to fold at least this many events
   * past the stored one. Snapshots trade one small write for not replaying
   * the log on every read. `Infinity` never stores one (a read-only reader).
   */
  snapshotEvery?: number
  /**
   * Retention: every append carries `retainForMs` with this value, so the
   * store expires a session whole once it has been idle this long.
   */
  retentionMs?: number
}

export interface SessionAppendOptions extends AppendOptions {
  /**
   * `'caller'` (the default) refuses IDs with the reserved `a2.` prefix;
   * A2's own handlers append as `'a2'`.
   */
  author?: 'caller' | 'a2'
}

export interface SessionLog {
  readonly sessionId: string
  append(events: readonly EventInput[], options?: SessionAppendOptions): Promise<StoredEvent[]>
  read(options?: ReadOptions): Promise<StoredEvent[]>
  head(): Promise<number>
  /** The head a reader at rest checks for news (the store's `restingHead`, else `head()`). */
  restingHead(): Promise<number>
  tail(options?: TailOptions): AsyncIterable<StoredEvent>
  /** The reducer's state at the log's current end: snapshot plus tail. */
  state<State>(reducer: Reducer<State, never>): Promise<StateSnapshot<State>>
  /**
   * `state()`, plus the ID of the event at `index` (undefined for an empty
   * log), read at no extra cost: a cache that keeps the state tells by it
   * whether the log it folded is still there or was erased and rewritten.
   */
  stateWithLastId<State>(
    reducer: Reducer<State, never>,
  ): Promise<StateSnapshot<State> & { lastId: string | undefined }>
}

export interface EventLog {
  readonly store: EventStore
  session(sessionId: string): SessionLog
}

const DEFAULT_SNAPSHOT_EVERY = 100

/**
 * The log as applications use it: envelope and contract validation, the
 * reserved ID prefix, and reducer state read as snapshot plus tail, over any
 * `EventStore`.
 *
 * @example
 * const log = eventLog({ store: memoryEventStore() })
 * await log.session('s1').append([{ type: 'note.added', payload: { text: 'hi' } }])
 * const { state, index } = await log.session('s1').state(notesReducer)
 */
export function eventLog(options: EventLogOptions): EventLog {
  const { store, contract, check } = options
  const generateId = options.generateId ?? (() => crypto.randomUUID())
  const snapshotEvery = options.snapshotEvery ?? DEFAULT_SNAPSHOT_EVERY
  const { retentionMs } = options

  function prepare(events: readonly EventInput[], author: 'caller' | 'a2') {
    const refuseReserved = (id: string | undefined): void => {
      if (author === 'caller' && id !== undefined && isReservedId(id))
        throw new ReservedEventIdError(id)
    }
    return events.map((raw) => {
      const checked = checkEnvelope(raw)
      refuseReserved(checked.id)
      const event = contract ? contract.validate(checked) : checked
      // An ID the contract supplies is held to the rules of a caller's.
      if (event.id !== checked.id) refuseReserved(checkEnvelope(event).id)
      const id = event.id ?? generateId()
      return { id, type: event.type, payload: event.payload }
    })
  }

  async function loadSnapshot<State>(
    sessionId: string,
    reducer: Reducer<State, never>,
  ): Promise<{ snapshot: StateSnapshot<State>; events: StoredEvent[]; snapshotId?: string }> {
    const initial = { state: reducer.initialState, index: 0 }
    const stored = await store.readSnapshot(sessionId, reducer.name).catch(() => undefined)
    if (stored && Number.isSafeInteger(stored.index) && stored.index > 0) {
      // Read from the snapshot's own event, to prove the log still reaches it.
      const events = await store.read(sessionId, { after: stored.index - 1 })
      if (events[0]?.index === stored.index) {
        return {
          snapshot: { state: stored.state as State, index: stored.index },
          events: events.slice(1),
          snapshotId: events[0].id,
        }
      }
    }
    return { snapshot: initial, events: await store.read(sessionId) }
  }

  async function stateWithLastId<State>(
    sessionId: string,
    reducer: Reducer<State, never>,
  ): Promise<StateSnapshot<State> & { lastId: string | undefined }> {
    const { snapshot, events, snapshotId } = await loadSnapshot(sessionId, reducer)
    // A reducer declares the events it folds (`Reducer<State, E>`); the log
    // hands it every stored event and the reducer ignores the rest.
    const fold = reducer.fold as unknown as (state: State, event: StoredEvent) => State
    const result = foldEvents({ ...reducer, fold }, snapshot, events)
    if (events.length >= snapshotEvery) {
      // A failed snapshot write only costs a longer replay next time.
      await store.writeSnapshot(sessionId, reducer.name, result).catch(() => undefined)
    }
    return { ...result, lastId: events.at(-1)?.id ?? snapshotId }
  }

  return {
    store,
    session(rawSessionId: string): SessionLog {
      const sessionId = checkSessionId(rawSessionId)
      return {
        sessionId,
        async append(events, { author = 'caller', ...appendOptions } = {}) {
          const prepared = prepare(events, author)
          await check?.(prepared)
          const retention = retentionMs === undefined ? {} : { retainForMs: retentionMs }
          const result = await store.append(sessionId, prepared, { ...retention, ...appendOptions })
          return result.events
        },
        read: (readOptions) => store.read(sessionId, readOptions),
        head: () => store.head(sessionId),
        restingHead: () => (store.restingHead ?? store.head).call(store, sessionId),
        tail: (tailOptions) => store.tail(sessionId, tailOptions),
        async state<State>(reducer: Reducer<State, never>) {
          const { state, index } = await stateWithLastId(sessionId, reducer)
          return { state, index }
        },
        stateWithLastId: (reducer) => stateWithLastId(sessionId, reducer),
      }
    },
  }
}
