import type { StoredEvent } from '../log/event.ts'

export interface TailSource {
  read(after: number): Promise<StoredEvent[]>
  /**
   * Resolves when there may be events after `after`, or when `signal` aborts.
   * Called after every read: `idleRounds` counts reads in a row that found
   * nothing (0 after a read that found news), for backoff.
   */
  waitForNews(after: number, idleRounds: number, signal: AbortSignal | undefined): Promise<void>
}

/** The live tail every store shares: read, yield, wait, repeat until aborted. */
export async function* tailLoop(
  source: TailSource,
  after: number,
  signal: AbortSignal | undefined,
): AsyncGenerator<StoredEvent> {
  let cursor = after
  let idleRounds = 0
  while (!signal?.aborted) {
    const events = await source.read(cursor)
    for (const event of events) {
      if (signal?.aborted) return
      // An index at or below the cursor would be a duplicate delivery.
      if (event.index <= cursor) continue
      cursor = event.index
      yield event
    }
    idleRounds = events.length === 0 ? idleRounds + 1 : 0
    // After news too: what comes next is written on the writer's rhythm, not
    // at once (a model step's progress batches are 50 to 250 ms apart).
    await source.waitForNews(cursor, idleRounds, signal)
  }
}
