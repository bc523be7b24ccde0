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
 * An entry is of one life of its session (`StateSnapshot.life`): a session
 * erased elsewhere (another process, `a2-aws erase`) must not come back
 * from here, nor its new life be folded onto its old state. So a read starts
 * at the last event the entry folded and checks that it is still there, in
 * the entry's life: the same one query, one item longer. When it is gone or
 * of another life, the state is rebuilt from the log.
 */
export function stateCache<State>(
  log: EventLog,
  reducer: Reducer<State, StoredEvent>,
): StateCache<State> {
  const cache = new Map<string, StateSnapshot<State>>()

  async function current(sessionId: string): Promise<StateSnapshot<State>> {
    const session = log.session(sessionId)
    const cached = cache.get(sessionId)
    if (cached && cached.index > 0) {
      const [last, ...news] = await session.read({ after: cached.index - 1 })
      if (last?.index === cached.index && last.life === cached.life) {
        return foldEvents(reducer, cached, news)
      }
    }
    return session.state(reducer)
  }

  async function read(sessionId: string): Promise<StateSnapshot<State>> {
    const entry = await current(sessionId)
    cache.delete(sessionId)
    cache.set(sessionId, entry)
    if (cache.size > STATE_CACHE_SIZE) cache.delete(cache.keys().next().value as string)
    return entry
  }

  return Object.assign(read, { forget: (sessionId: string) => void cache.delete(sessionId) })
}
