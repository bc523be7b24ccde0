import type { StoredEvent } from '../../log/event.ts'
import type { EventLog } from '../../log/event-log.ts'
import { foldEvents, type Reducer, type StateSnapshot } from '../../log/reducer.ts'

/** Sessions whose folded state an agent keeps in memory. */
const STATE_CACHE_SIZE = 500

/**
 * A session's folded state at the log's end, kept in memory for the most
 * recently used sessions: a later read folds only the events after it. The
 * log stays the truth; this is a cache any process may drop.
 */
export function stateCache<State>(
  log: EventLog,
  reducer: Reducer<State, StoredEvent>,
): (sessionId: string) => Promise<StateSnapshot<State>> {
  const cache = new Map<string, StateSnapshot<State>>()
  return async (sessionId) => {
    const cached = cache.get(sessionId)
    const snapshot = cached
      ? foldEvents(reducer, cached, await log.session(sessionId).read({ after: cached.index }))
      : await log.session(sessionId).state(reducer)
    cache.delete(sessionId)
    cache.set(sessionId, snapshot)
    if (cache.size > STATE_CACHE_SIZE) cache.delete(cache.keys().next().value as string)
    return snapshot
  }
}
