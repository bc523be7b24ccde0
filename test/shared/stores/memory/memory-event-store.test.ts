// Imported as a package user does: the conformance suite from `a2-aws/test`.
import { type EventStore, memoryEventStore } from 'a2-aws'
import {
  describeEventStoreConformance,
  type EventStoreFeature,
  type EventStoreHarness,
} from 'a2-aws/test'
import { describe, expect, it } from 'vitest'

function harness(): EventStoreHarness {
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
}

describeEventStoreConformance('memory store', harness, { describe, it, expect })

// A store that does only part of the contract runs only those features. The
// methods each feature calls (docs/testing.md's table): a store with just
// those, every other method throwing, passes the feature.
const CALLS: Record<EventStoreFeature, (keyof EventStore)[]> = {
  append: ['append', 'read', 'head'],
  eventIds: ['append', 'read', 'head'],
  size: ['append', 'read', 'head'],
  readAndTail: ['append', 'read', 'tail'],
  snapshots: ['append', 'read', 'readSnapshot', 'writeSnapshot'],
  cursors: ['append', 'head', 'readCursor'],
  claims: ['append', 'head', 'claim', 'readClaim', 'renewClaim', 'releaseClaim', 'revokeClaim'],
  erase: [
    'append',
    'read',
    'head',
    'readSnapshot',
    'writeSnapshot',
    'readCursor',
    'claim',
    'readClaim',
    'renewClaim',
    'erase',
  ],
  lives: ['append', 'read', 'head', 'restingHead', 'readSnapshot', 'writeSnapshot', 'erase'],
  eventLog: ['append', 'head', 'restingHead'],
}

for (const [feature, calls] of Object.entries(CALLS) as [EventStoreFeature, string[]][]) {
  describeEventStoreConformance(
    `memory store with only ${calls.join(', ')}`,
    () => {
      const { store, corruptSnapshot } = harness()
      const partial = Object.fromEntries(
        Object.entries(store).map(([method, implementation]) => [
          method,
          calls.includes(method)
            ? implementation
            : () => {
                throw new Error(`${method} is not implemented`)
              },
        ]),
      ) as unknown as EventStore
      return { store: partial, corruptSnapshot }
    },
    { describe, it, expect },
    { features: [feature] },
  )
}
