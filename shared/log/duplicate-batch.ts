import { PartialDuplicateBatchError } from './errors.ts'
import type { NewEvent } from './event.ts'

/** What a store remembers about an event ID, to judge a later resubmission. */
export interface IdGuard {
  eventId: string
  sessionId: string
  index: number
  /** `eventContent()` of the stored event, or a digest of it. */
  content: string
  /** Index of the first event of the batch that stored it, and its size. */
  batchFirstIndex: number
  batchSize: number
}

/**
 * Judges a batch some of whose IDs are already stored. Returns the index range
 * to answer with when it is an exact replay of one earlier batch; throws
 * `PartialDuplicateBatchError` for anything else. `contents[i]` is the content
 * of `events[i]` in the same form the guards hold.
 */
export function judgeResubmission(
  sessionId: string,
  events: readonly NewEvent[],
  contents: readonly string[],
  guards: ReadonlyMap<string, IdGuard>,
): { firstIndex: number; lastIndex: number } {
  const known = events.filter((event) => guards.has(event.id)).map((event) => event.id)
  const reject = (reason: string): never => {
    throw new PartialDuplicateBatchError(known, reason)
  }
  if (known.length < events.length) reject('but other events of the batch are new')
  const first = guards.get(events[0]?.id ?? '') as IdGuard
  events.forEach((event, position) => {
    const guard = guards.get(event.id) as IdGuard
    if (guard.sessionId !== sessionId) reject('belong to another session')
    if (guard.content !== contents[position]) reject('with other content')
    if (guard.index !== first.index + position || guard.batchFirstIndex !== first.batchFirstIndex) {
      reject('in another batch or order')
    }
  })
  if (first.index !== first.batchFirstIndex || first.batchSize !== events.length) {
    reject('as part of a larger batch')
  }
  return { firstIndex: first.index, lastIndex: first.index + events.length - 1 }
}

/** IDs that appear more than once in one batch. */
export function repeatedIds(events: readonly NewEvent[]): string[] {
  const seen = new Set<string>()
  const repeated = new Set<string>()
  for (const { id } of events) (seen.has(id) ? repeated : seen).add(id)
  return [...repeated]
}
