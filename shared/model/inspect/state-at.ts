import { A2Error } from '../../log/error-brand.ts'
import type { ErrorStatuses } from '../../log/error-statuses.ts'
import type { StoredEvent } from '../../log/event.ts'
import { foldEvents, type StateSnapshot } from '../../log/reducer.ts'
import type { AIState } from '../state/ai-state.ts'
import { AI_STATE_REDUCER } from '../state/ai-state-reducer.ts'

declare module '../../log/error-brand.ts' {
  interface A2Codes {
    /** An index the inspector was asked about is outside the session's log. */
    INDEX_OUT_OF_RANGE: undefined
  }
}

/** The HTTP answer to the inspector's code: the request asked for a state the log has not. */
export const INSPECT_ERROR_STATUSES: ErrorStatuses<'INDEX_OUT_OF_RANGE'> = {
  INDEX_OUT_OF_RANGE: 400,
}

/** An index the inspector was asked about is not in the session's log. */
export class IndexOutOfRangeError extends A2Error<'INDEX_OUT_OF_RANGE'> {
  readonly index: number
  readonly head: number

  constructor(index: number, head: number) {
    super(
      'INDEX_OUT_OF_RANGE',
      `No state at index ${index}: the log runs from 0 (before any event) to ${head}`,
    )
    this.name = 'IndexOutOfRangeError'
    this.index = index
    this.head = head
  }
}

/** The index of the last of `events` (0 when there are none). */
export const headOf = (events: readonly StoredEvent[]): number => events.at(-1)?.index ?? 0

/**
 * The AI state after the event at `index` (0: before any event), folded by
 * the same reducer the agent and the browser use, from the session's events
 * in log order. Throws `IndexOutOfRangeError` for an index outside 0..head.
 *
 * @example
 * const { state } = stateAt(await session.read(), 12)
 */
export function stateAt(events: readonly StoredEvent[], index: number): StateSnapshot<AIState> {
  const head = headOf(events)
  if (!Number.isSafeInteger(index) || index < 0 || index > head)
    throw new IndexOutOfRangeError(index, head)
  return foldEvents(
    AI_STATE_REDUCER,
    { state: AI_STATE_REDUCER.initialState, index: 0 },
    events.filter((event) => event.index <= index),
  )
}

/**
 * The state after every index of the log, 0..head, folded once: for a
 * slider that moves back and forth over the log. Entry `i` is the state
 * after event `i`.
 */
export function statesByIndex(events: readonly StoredEvent[]): AIState[] {
  const states: AIState[] = [AI_STATE_REDUCER.initialState]
  let state = AI_STATE_REDUCER.initialState
  for (const event of events) {
    state = AI_STATE_REDUCER.fold(state, event)
    states[event.index] = state
  }
  return states
}
