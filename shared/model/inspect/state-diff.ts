import diff from 'microdiff'
import type { StoredEvent } from '../../log/event.ts'
import { headOf, IndexOutOfRangeError, stateAt } from './state-at.ts'

/** One difference between two states, at a path such as `active.phase` or `messages.2`. */
export interface StateChange {
  path: string
  kind: 'added' | 'removed' | 'changed'
  before?: unknown
  after?: unknown
}

/**
 * What changed between two states: the paths that were added, removed or
 * changed, each where the two first differ (a new message is one `added`
 * entry, not one per part). Compared with microdiff.
 */
export function diffStates(before: unknown, after: unknown): StateChange[] {
  if (typeof before !== 'object' || before === null || typeof after !== 'object' || after === null)
    return Object.is(before, after) ? [] : [{ path: '', kind: 'changed', before, after }]
  return diff(before as Record<string, unknown>, after as Record<string, unknown>).map(
    (change): StateChange => {
      const path = change.path.join('.')
      if (change.type === 'CREATE') return { path, kind: 'added', after: change.value }
      if (change.type === 'REMOVE') return { path, kind: 'removed', before: change.oldValue }
      return { path, kind: 'changed', before: change.oldValue, after: change.value }
    },
  )
}

/**
 * The changes from the state at index `from` to the state at index `to` of
 * a session's log (either order; both in 0..head).
 */
export function diffAt(events: readonly StoredEvent[], from: number, to: number): StateChange[] {
  const head = headOf(events)
  for (const index of [from, to]) {
    if (!Number.isSafeInteger(index) || index < 0 || index > head)
      throw new IndexOutOfRangeError(index, head)
  }
  return diffStates(stateAt(events, from).state, stateAt(events, to).state)
}
