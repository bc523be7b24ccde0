import { randomUUID } from 'node:crypto'
import type { describe, expect, it } from 'vitest'
import type { EventStore, NewEvent, Reducer, StoredEvent } from '../../index.ts'

// What every feature suite of the store conformance suite shares: the
// harness a store is tested through, the test functions, and the helpers
// the tests write events and read results with.

export interface EventStoreHarness {
  store: EventStore
  /** Makes the stored snapshot of a reducer undecodable, as a damaged item would be. */
  corruptSnapshot(sessionId: string, reducerName: string): Promise<void>
  /**
   * Another instance of the store over the same data, as another process or
   * container has it: its own hints and caches (the lives suite writes
   * through both). Without it, `store` plays both.
   */
  another?(): EventStore
}

/**
 * The test functions the suite registers its tests with: vitest's own,
 * passed in so that importing `a2-aws/test` never loads a test runner.
 */
export interface ConformanceTestApi {
  describe: typeof describe
  it: typeof it
  expect: typeof expect
}

/** A fresh session ID, so tests on one store never meet. */
export const session = (): string => `s-${randomUUID()}`
/** An event to append, its payload naming its ID unless given. */
export const ev = (id: string, payload: unknown = { n: id }, type = 'test.happened'): NewEvent => ({
  id,
  type,
  payload,
})
export const ids = (events: StoredEvent[]): string[] => events.map((event) => event.id)
export const indices = (events: StoredEvent[]): number[] => events.map((event) => event.index)

/** The first `count` events of a tail. */
export async function collect(
  iterable: AsyncIterable<StoredEvent>,
  count: number,
): Promise<StoredEvent[]> {
  const seen: StoredEvent[] = []
  for await (const event of iterable) {
    seen.push(event)
    if (seen.length === count) break
  }
  return seen
}

/** Counts how many events a reducer folded, to tell a snapshot read from a replay. */
export function countingReducer(name: string): Reducer<number[]> & { folds: number } {
  const reducer = {
    name,
    initialState: [] as number[],
    folds: 0,
    fold(state: number[], event: StoredEvent): number[] {
      reducer.folds++
      return [...state, event.index]
    },
  }
  return reducer
}
