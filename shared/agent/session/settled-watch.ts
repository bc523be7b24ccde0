import type { StoredEvent } from '../../log/event.ts'
import { foldEvents, type Reducer, type StateSnapshot } from '../../log/reducer.ts'
import { expectsNews } from '../../model/state/expects-news.ts'
import type { SessionState } from '../../model/state/session-state.ts'

/**
 * A GET stream's `settled` check (shared/http/sse.ts): from the state the
 * stream's open read (a snapshot the agent folded anyway), it folds each
 * event the stream passes after it and answers, for the event at the state's
 * index, whether nothing is on its way without someone acting. The test is
 * the client's own (`expectsNews`) on the same events, so a client the
 * stream leaves for quiet rests rather than reconnecting at once. Only an
 * event of the AI protocol (`ai.*`: a turn's end, a message) settles it:
 * a session your services write app events to keeps its stream for the
 * full quiet, as before, and news there stays live.
 *
 * It answers false for an event it cannot place: one before the snapshot
 * (the state there is not known), one after a gap, one of another life,
 * or a fold that throws; from a gap on, always false.
 */
export function settledWatch(
  reducer: Reducer<SessionState, StoredEvent>,
  snapshot: StateSnapshot<SessionState>,
): (event: StoredEvent) => boolean {
  let current: StateSnapshot<SessionState> | undefined = snapshot
  return (event) => {
    if (!current) return false
    if (event.index > current.index) {
      const follows =
        event.index === current.index + 1 &&
        (current.life === undefined || event.life === current.life)
      if (!follows) {
        current = undefined
        return false
      }
      try {
        current = foldEvents(reducer, current, [event])
      } catch {
        current = undefined
        return false
      }
    }
    return (
      event.type.startsWith('ai.') &&
      event.index === current.index &&
      (current.life === undefined || event.life === current.life) &&
      !expectsNews(current.state.ai)
    )
  }
}
