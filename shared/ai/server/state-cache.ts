import type { StoredEvent } from '../../log/event.ts'
import type { EventLog } from '../../log/event-log.ts'
import { foldEvents, type Reducer, type StateSnapshot } from '../../log/reducer.ts'

/** Sessions whose folded state an agent keeps in memory. */
const STATE_CACHE_SIZE = 500

export interface StateCache<State> {
  /** The session's folded state at the log's end. */
  (sessionId: string): Promise<StateSnapshot<State>>
  /** Drops what it keeps of a session (erased by this process). */
  forget(sessionId: string): void
}

/**
 * A session's folded state at the log's end, kept in memory for the most
 * recently used sessions: a later read folds only the events after it. The
 * log stays the truth; this is a cache any process may drop.
 *
 * A session erased elsewhere (another process, `a2-aws erase`) must not come
 * back from here, nor its new log be folded onto its old state. So a read
 * starts at the last event the entry folded and checks that it is still
 * there, the same event by ID: the same one query, one item longer. When it
 * is gone or another, the state is rebuilt from the log.
 */
export function stateCache<State>(
  log: EventLog,
  reducer: Reducer<State, StoredEvent>,
): StateCache<State> {
  const cache = new Map<string, StateSnapshot<State> & { lastId: string | undefined }>()

  async function current(
    sessionId: string,
  ): Promise<StateSnapshot<State> & { lastId: string | undefined }> {
    const session = log.session(sessionId)
    const cached = cache.get(sessionId)
    if (cached && cached.index > 0) {
      const [last, ...news] = await session.read({ after: cached.index - 1 })
      if (last !== undefined && last.id === cached.lastId) {
        return { ...foldEvents(reducer, cached, news), lastId: news.at(-1)?.id ?? cached.lastId }
      }
    }
    return session.stateWithLastId(reducer)
  }

  async function read(sessionId: string): Promise<StateSnapshot<State>> {
    const entry = await current(sessionId)
    cache.delete(sessionId)
    cache.set(sessionId, entry)
    if (cache.size > STATE_CACHE_SIZE) cache.delete(cache.keys().next().value as string)
    return { state: entry.state, index: entry.index }
  }

  return Object.assign(read, { forget: (sessionId: string) => void cache.delete(sessionId) })
}
