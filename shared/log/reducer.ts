import type { StoredEvent } from './event.ts'

/**
 * A pure fold over a session's events. `name` is the snapshot identity: a
 * snapshot is reused only by a reducer of the same name, so rename the reducer
 * whenever `fold` or `initialState` changes meaning.
 *
 * State must survive `JSON.stringify`/`JSON.parse`, because snapshots store it.
 *
 * @example
 * const counter: Reducer<number> = {
 *   name: 'counter.v1',
 *   initialState: 0,
 *   fold: (count) => count + 1,
 * }
 */
export interface Reducer<State, Event = StoredEvent> {
  name: string
  initialState: State
  fold: (state: State, event: Event) => State
}

/** A reducer's state after the log's event at `index` (0: before any event). */
export interface StateSnapshot<State> {
  state: State
  index: number
  /**
   * The session's life the state is of (`StoredEvent.life` of the event at
   * `index`); undefined at index 0, before any event. An append meant to
   * follow this state names it (`AppendOptions.life`).
   */
  life?: string
}

export function foldEvents<State, Event extends { index: number; life?: string }>(
  reducer: Reducer<State, Event>,
  from: StateSnapshot<State>,
  events: Iterable<Event>,
): StateSnapshot<State> {
  let { state, index, life } = from
  for (const event of events) {
    state = reducer.fold(state, event)
    index = event.index
    life = event.life
  }
  return life === undefined ? { state, index } : { state, index, life }
}
