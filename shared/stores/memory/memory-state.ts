import type { IdGuard } from '../../log/duplicate-batch.ts'
import type { StoredEvent } from '../../log/event.ts'
import type { Claim } from '../../log/event-store.ts'

/** A claim as the memory store keeps it: `ended` records how an attempt gave it up, for the next taker. */
type HeldClaim = Claim & { ended?: 'released' | 'revoked' }

/** Everything one memory store instance holds, which each of its parts takes. */
export interface MemoryState {
  readonly now: () => number
  readonly newLife: () => string
  readonly logs: Map<string, StoredEvent[]>
  /** Each session's life, while it has events (see `StoredEvent.life`). */
  readonly lives: Map<string, string>
  readonly guards: Map<string, IdGuard>
  /** Snapshots are kept serialized, as a real store would keep them. */
  readonly snapshots: Map<string, string>
  /** The tails waiting for a session's next events. */
  readonly waiters: Map<string, Set<() => void>>
  readonly cursors: Map<string, number>
  readonly claims: Map<string, HeldClaim>
  /** When each session with retention expires (epoch ms), as DynamoDB's TTL would see it. */
  readonly expiries: Map<string, number>
}

export function memoryState(now: () => number, newLife: () => string): MemoryState {
  return {
    now,
    newLife,
    logs: new Map(),
    lives: new Map(),
    guards: new Map(),
    snapshots: new Map(),
    waiters: new Map(),
    cursors: new Map(),
    claims: new Map(),
    expiries: new Map(),
  }
}

/** The key of a session's item named `name` (a cursor, a claim, a snapshot): the session, then a NUL. */
export const keyOf = (sessionId: string, name: string): string => `${sessionId}\u0000${name}`

/** The session's log, in place (empty when it has none). */
export const logOf = ({ logs }: MemoryState, sessionId: string): StoredEvent[] =>
  logs.get(sessionId) ?? []

/** Copies, as a real store hands out: a caller's edits never reach the log. */
export const clone = (events: StoredEvent[]): StoredEvent[] => structuredClone(events)

/** Wakes the session's waiting tails. */
export function wake({ waiters }: MemoryState, sessionId: string): void {
  const set = waiters.get(sessionId)
  waiters.delete(sessionId)
  for (const resolve of set ?? []) resolve()
}
