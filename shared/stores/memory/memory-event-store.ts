import type { EventStore } from '../../log/event-store.ts'
import { memoryAppend } from './memory-append.ts'
import { memoryClaims } from './memory-claims.ts'
import { memoryErase } from './memory-erase.ts'
import { memoryReads } from './memory-reads.ts'
import { memorySnapshots } from './memory-snapshots.ts'
import { memoryState } from './memory-state.ts'

export interface MemoryEventStoreOptions {
  /** Milliseconds since the epoch; passed in so tests control time. */
  now?: () => number
  /**
   * The ID of each new life the store starts (default: `m`, six random
   * characters of this store's, then a count: `m4k2p9q.1`, `m4k2p9q.2`):
   * unique per store, so a store made again after a restart, whose lives
   * count from 1 again, never repeats one. A simulation passes its own for
   * runs that replay exactly.
   */
  lifeIds?: () => string
}

/**
 * The embedded default: one process, nothing persisted. It keeps the same
 * rules as the DynamoDB store (size limits included), so an app that works
 * here does not meet a new error in production.
 */
export function memoryEventStore(options: MemoryEventStoreOptions = {}): EventStore {
  const now = options.now ?? Date.now
  const newLife = options.lifeIds ?? lifeCounter(`m${crypto.randomUUID().slice(0, 6)}`)
  const state = memoryState(now, newLife)
  const store: EventStore = {
    append: (sessionId, events, appendOptions) =>
      memoryAppend(state, sessionId, events, appendOptions),
    ...memoryReads(state),
    ...memorySnapshots(state),
    ...memoryClaims(state),
    erase: (sessionId, eraseOptions) => memoryErase(state, sessionId, eraseOptions),
  }

  /**
   * Retention, lazily: a session past its expiry is erased whole before
   * anything reads or writes it, as DynamoDB's TTL and sweep would have.
   */
  async function expireIfDue(sessionId: string): Promise<void> {
    const expiry = state.expiries.get(sessionId)
    if (expiry !== undefined && expiry <= now()) await store.erase(sessionId)
  }
  const guarded =
    <Args extends [string, ...unknown[]], Result>(method: (...args: Args) => Promise<Result>) =>
    async (...args: Args): Promise<Result> => {
      await expireIfDue(args[0])
      return method(...args)
    }
  return {
    ...store,
    append: guarded(store.append),
    read: guarded(store.read),
    head: guarded(store.head),
    readSnapshot: guarded(store.readSnapshot),
    readCursor: guarded(store.readCursor),
    claim: guarded(store.claim),
    readClaim: guarded(store.readClaim),
  }
}

/** Lives `<prefix>.1`, `<prefix>.2`, ...: unique per store. */
function lifeCounter(prefix: string): () => string {
  let started = 0
  return () => `${prefix}.${++started}`
}
