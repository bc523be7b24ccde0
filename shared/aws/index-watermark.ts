import type { EventStore } from '../log/event-store.ts'

/** Sessions a watermark remembers; a forgotten one just loses deduplication. */
const DEFAULT_MAX_SESSIONS = 10_000

/**
 * The highest log index this process has seen committed, per session. The
 * SQS dispatcher puts it in a wake-up's deduplication ID, so the fast path and
 * the stream router send the same ID for the same news.
 *
 * Why this is safe: every index recorded here was committed before it was
 * recorded, and every wake-up this process sends is caused by news it saw
 * through the store, so the news is at or below the watermark. A message that
 * SQS drops as a duplicate therefore had a twin sent after that news was
 * committed, and the twin's reader sees it.
 */
export interface IndexWatermark {
  observe(sessionId: string, index: number): void
  get(sessionId: string): number | undefined
  /** Drops what it knows of a session (erased: its log starts over at 1). */
  forget(sessionId: string): void
}

export function indexWatermark({
  maxSessions = DEFAULT_MAX_SESSIONS,
}: {
  maxSessions?: number
} = {}): IndexWatermark {
  const indexes = new Map<string, number>()
  return {
    observe(sessionId, index) {
      if (!Number.isSafeInteger(index) || index <= 0) return
      const known = indexes.get(sessionId)
      indexes.delete(sessionId)
      indexes.set(sessionId, Math.max(known ?? 0, index))
      if (indexes.size > maxSessions) indexes.delete(indexes.keys().next().value as string)
    },
    get: (sessionId) => indexes.get(sessionId),
    forget: (sessionId) => void indexes.delete(sessionId),
  }
}

/** The store, reporting every index it reads or writes to `watermark`. */
export function watchedStore(store: EventStore, watermark: IndexWatermark): EventStore {
  const observeAll = (events: readonly { sessionId: string; index: number }[]): void => {
    for (const event of events) watermark.observe(event.sessionId, event.index)
  }
  return {
    ...bindAll(store),
    async append(sessionId, events, options) {
      const result = await store.append(sessionId, events, options)
      observeAll(result.events)
      return result
    },
    async read(sessionId, options) {
      const events = await store.read(sessionId, options)
      observeAll(events)
      return events
    },
    async head(sessionId) {
      const head = await store.head(sessionId)
      watermark.observe(sessionId, head)
      return head
    },
    async restingHead(sessionId) {
      const head = await (store.restingHead ?? store.head).call(store, sessionId)
      watermark.observe(sessionId, head)
      return head
    },
    async erase(sessionId) {
      const receipt = await store.erase(sessionId)
      // The erased log's indices would be new news again: they are no watermark.
      watermark.forget(sessionId)
      return receipt
    },
    async readSnapshot(sessionId, reducerName) {
      const snapshot = await store.readSnapshot(sessionId, reducerName)
      if (snapshot) watermark.observe(sessionId, snapshot.index)
      return snapshot
    },
    async *tail(sessionId, options) {
      for await (const event of store.tail(sessionId, options)) {
        watermark.observe(event.sessionId, event.index)
        yield event
      }
    },
  }
}

function bindAll(store: EventStore): EventStore {
  return {
    append: store.append.bind(store),
    read: store.read.bind(store),
    head: store.head.bind(store),
    tail: store.tail.bind(store),
    readSnapshot: store.readSnapshot.bind(store),
    writeSnapshot: store.writeSnapshot.bind(store),
    readCursor: store.readCursor.bind(store),
    claim: store.claim.bind(store),
    renewClaim: store.renewClaim.bind(store),
    readClaim: store.readClaim.bind(store),
    releaseClaim: store.releaseClaim.bind(store),
    revokeClaim: store.revokeClaim.bind(store),
    erase: store.erase.bind(store),
  }
}
