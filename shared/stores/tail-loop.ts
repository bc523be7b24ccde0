import type { StoredEvent } from '../log/event.ts'

export interface TailSource {
  read(after: number): Promise<StoredEvent[]>
  /**
   * Resolves when there may be events after `after`, or when `signal` aborts.
   * `idleRounds` counts reads in a row that found nothing, for backoff.
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
    if (events.length === 0) await source.waitForNews(cursor, idleRounds, signal)
  }
}
