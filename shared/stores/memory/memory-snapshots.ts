import type { EventStore, StoredSnapshot } from '../../log/event-store.ts'
import { logOf, type MemoryState } from './memory-state.ts'

type SnapshotMethods = Pick<EventStore, 'readSnapshot' | 'writeSnapshot'>

/** The memory store's snapshots, kept serialized, as a real store would keep them. */
export function memorySnapshots(state: MemoryState): SnapshotMethods {
  return {
    async readSnapshot(
      sessionId: string,
      reducerName: string,
    ): Promise<StoredSnapshot | undefined> {
      const raw = state.snapshots.get(`${sessionId}\u0000${reducerName}`)
      if (raw === undefined) return undefined
      try {
        return JSON.parse(raw) as StoredSnapshot
      } catch {
        return undefined
      }
    },

    async writeSnapshot(
      sessionId: string,
      reducerName: string,
      snapshot: StoredSnapshot,
    ): Promise<void> {
      const key = `${sessionId}\u0000${reducerName}`
      // Only while the log reaches it in the snapshot's life: none outlives its life.
      const { length } = logOf(state, sessionId)
      if (length === 0 || length < snapshot.index) return
      if ((snapshot.life ?? '') !== state.lives.get(sessionId)) return
      // The store it is called on reads the one there: retention's check,
      // or a test's wrapper, comes with it.
      const existing = await this.readSnapshot(sessionId, reducerName)
      if (existing && existing.index >= snapshot.index) return
      state.snapshots.set(key, JSON.stringify(snapshot))
    },
  }
}
