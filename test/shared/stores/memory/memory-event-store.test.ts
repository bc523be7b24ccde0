// Imported as a package user does: the conformance suite from `a2-aws/test`.
import { memoryEventStore } from 'a2-aws'
import { describeEventStoreConformance } from 'a2-aws/test'
import { describe, expect, it } from 'vitest'

describeEventStoreConformance(
  'memory store',
  () => {
    const store = memoryEventStore()
    // The memory store keeps snapshots serialized; a snapshot that fails to
    // decode reaches the log as "none", which is what this stands in for.
    const corrupted = new Set<string>()
    return {
      store: {
        ...store,
        readSnapshot: async (sessionId, name) =>
          corrupted.has(`${sessionId}/${name}`) ? undefined : store.readSnapshot(sessionId, name),
      },
      corruptSnapshot: async (sessionId, name) => {
        corrupted.add(`${sessionId}/${name}`)
      },
    }
  },
  { describe, it, expect },
)
