import type { Contract } from './contract.ts'
import { isA2Error } from './error-brand.ts'
import { ReservedEventIdError } from './errors.ts'
import { type EventInput, isReservedId, type NewEvent, type StoredEvent } from './event.ts'
import { checkEnvelope, checkSessionId } from './event-envelope.ts'
import type {
  AppendOptions,
  EventStore,
  ReadOptions,
  RestingHead,
  TailOptions,
} from './event-store.ts'
import { foldEvents, type Reducer, type StateSnapshot } from './reducer.ts'
import { currentVersion, type UpcastContract, upcastEvent } from './upcast.ts'

export interface EventLogOptions {
  store: EventStore
  /**
   * Validates appends of the event types it declares. Given its `declares`
   * and `events` too, the log stamps appends of a `versionedEvent()` type
   * with its current version, and upcasts older events wherever it hands
   * them out (`read`, `tail`, `state`): the stored log is never rewritten.
   */
  contract?: Pick<Contract, 'validate'> & Partial<Pick<Contract, 'declares' | 'events'>>
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
  /** The head a reader at rest checks for news, and its life (the store's `restingHead`, else `head()` and the last event). */
  restingHead(): Promise<RestingHead>
  tail(options?: TailOptions): AsyncIterable<StoredEvent>
  /**
   * The reducer's state at the log's current end (snapshot plus tail), with
   * the index and the life it is of: what an append that follows it names.
   */
  state<State>(reducer: Reducer<State, never>): Promise<StateSnapshot<State>>
}

export interface EventLog {
  readonly store: EventStore
  session(sessionId: string): SessionLog
}

export const DEFAULT_SNAPSHOT_EVERY = 100

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
  // What the log stamps and upcasts with: the contract, when it says which
  // types it declares and how (`events`).
  const versions: UpcastContract | undefined =
    contract?.declares && contract.events
      ? { declares: contract.declares, events: contract.events }
      : undefined
  const upcast = (event: StoredEvent): StoredEvent => upcastEvent(versions, event)

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
      const version = currentVersion(versions, event.type)
      return { id, type: event.type, payload: event.payload, ...(version > 1 ? { version } : {}) }
    })
  }

  async function loadSnapshot<State>(
    sessionId: string,
    reducer: Reducer<State, never>,
  ): Promise<{ snapshot: StateSnapshot<State>; events: StoredEvent[] }> {
    const initial = { state: reducer.initialState, index: 0 }
    const stored = await store.readSnapshot(sessionId, reducer.name).catch(() => undefined)
    if (stored && Number.isSafeInteger(stored.index) && stored.index > 0) {
      // Read from the snapshot's own event, to prove the log still reaches
      // it in the snapshot's life (a snapshot of a life before lives: '').
      const events = await store.read(sessionId, { after: stored.index - 1 })
      const [at] = events
      if (at?.index === stored.index && at.life === (stored.life ?? '')) {
        return {
          snapshot: { state: stored.state as State, index: stored.index, life: at.life },
          events: events.slice(1),
        }
      }
    }
    return { snapshot: initial, events: await store.read(sessionId) }
  }

  async function state<State>(
    sessionId: string,
    reducer: Reducer<State, never>,
  ): Promise<StateSnapshot<State>> {
    const { snapshot, events } = await loadSnapshot(sessionId, reducer)
    // A reducer declares the events it folds (`Reducer<State, E>`); the log
    // hands it every stored event and the reducer ignores the rest.
    const fold = reducer.fold as unknown as (state: State, event: StoredEvent) => State
    const result = foldEvents({ ...reducer, fold }, snapshot, events.map(upcast))
    if (events.length >= snapshotEvery) {
      // A failed snapshot write only costs a longer replay next time.
      await store.writeSnapshot(sessionId, reducer.name, result).catch(() => undefined)
    }
    return result
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
          const options = { ...retention, ...appendOptions }
          try {
            return (await store.append(sessionId, prepared, options)).events
          } catch (error) {
            // The answer was lost (a timeout, a connection dropped after the
            // write may have committed): the same events, with the same IDs,
            // once more. Had they landed, that is a replay (by their ID
            // guards, or at their index), so the caller learns the outcome,
            // and so does whatever it wakes.
            if (!outcomeUnknown(error)) throw error
            return (await store.append(sessionId, prepared, options)).events
          }
        },
        read: async (readOptions) => (await store.read(sessionId, readOptions)).map(upcast),
        head: () => store.head(sessionId),
        restingHead: async () => {
          if (store.restingHead) return store.restingHead(sessionId)
          const index = await store.head(sessionId)
          if (index === 0) return { index }
          const [last] = await store.read(sessionId, { after: index - 1, limit: 1 })
          return last?.life ? { index, life: last.life } : { index }
        },
        tail: (tailOptions) =>
          versions
            ? mapTail(store.tail(sessionId, tailOptions), upcast)
            : store.tail(sessionId, tailOptions),
        state: (reducer) => state(sessionId, reducer),
      }
    },
  }
}

/**
 * A tail with each event mapped. `return()` goes straight to the source, so
 * a reader that stops ends the store's tail at once.
 */
function mapTail(
  source: AsyncIterable<StoredEvent>,
  map: (event: StoredEvent) => StoredEvent,
): AsyncIterable<StoredEvent> {
  return {
    [Symbol.asyncIterator]() {
      const events = source[Symbol.asyncIterator]()
      return {
        async next() {
          const next = await events.next()
          return next.done ? next : { done: false, value: map(next.value) }
        },
        return: async (value?: unknown) =>
          events.return ? events.return(value) : { done: true, value: undefined },
      }
    },
  }
}

/**
 * Whether a failed append may have written: any failure but the log's own
 * refusals (an A2 error says what was refused, and that nothing was
 * written) and programming errors. A store's transport failing (the AWS
 * SDK's timeouts and throttling after its retries, a dropped connection)
 * leaves the outcome unknown.
 */
function outcomeUnknown(error: unknown): boolean {
  return (
    error instanceof Error &&
    !isA2Error(error) &&
    !(error instanceof TypeError) &&
    !(error instanceof RangeError)
  )
}
