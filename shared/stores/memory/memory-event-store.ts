import { eventContent } from '../../log/canonical-json.ts'
import { type IdGuard, judgeResubmission, repeatedIds } from '../../log/duplicate-batch.ts'
import {
  AppendConflictError,
  ClaimHeldError,
  CursorConflictError,
  checkUnguardedAppend,
  FencedOutError,
  guardedCount,
  LifeEndedError,
  PartialDuplicateBatchError,
} from '../../log/errors.ts'
import type { NewEvent, StoredEvent } from '../../log/event.ts'
import {
  type AppendOptions,
  type AppendResult,
  type Claim,
  type ClaimOptions,
  type EraseReceipt,
  type EventStore,
  nothingErased,
  type ReadOptions,
  type RestingHead,
  type StoredSnapshot,
  type TailOptions,
} from '../../log/event-store.ts'
import { decodePayload, encodeBatch } from '../payload-codec.ts'
import { tailLoop } from '../tail-loop.ts'

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
  const logs = new Map<string, StoredEvent[]>()
  /** Each session's life, while it has events (see `StoredEvent.life`). */
  const lives = new Map<string, string>()
  const newLife = options.lifeIds ?? lifeCounter(`m${crypto.randomUUID().slice(0, 6)}`)
  const guards = new Map<string, IdGuard>()
  /** Snapshots are kept serialized, as a real store would keep them. */
  const snapshots = new Map<string, string>()
  const waiters = new Map<string, Set<() => void>>()
  const cursors = new Map<string, number>()
  /** `ended` records how an attempt gave the claim up, for the next taker. */
  const claims = new Map<string, Claim & { ended?: 'released' | 'revoked' }>()
  const keyOf = (sessionId: string, name: string): string => `${sessionId}\u0000${name}`
  /** When each session with retention expires (epoch ms), as DynamoDB's TTL would see it. */
  const expiries = new Map<string, number>()

  const logOf = (sessionId: string): StoredEvent[] => logs.get(sessionId) ?? []
  const clone = (events: StoredEvent[]): StoredEvent[] => structuredClone(events)

  function wake(sessionId: string): void {
    const set = waiters.get(sessionId)
    waiters.delete(sessionId)
    for (const resolve of set ?? []) resolve()
  }

  const store: EventStore = {
    async append(
      sessionId: string,
      events: readonly NewEvent[],
      appendOptions: AppendOptions = {},
    ): Promise<AppendResult> {
      if (events.length === 0 && !appendOptions.cursor) return { events: [], replayed: false }
      const repeated = repeatedIds(events)
      if (repeated.length > 0)
        throw new PartialDuplicateBatchError(repeated, 'appear twice in the batch')
      checkUnguardedAppend(appendOptions)
      // The leading events that get ID guards (all by default, none with `guardIds: false`).
      const guarded = guardedCount(appendOptions.guardIds, events.length)
      const encoded = encodeBatch(events)
      const contents = events.map(eventContent)
      const { expectedIndex, cursor, fence, life } = appendOptions
      const current = lives.get(sessionId)
      if (life !== undefined && life !== current) throw new LifeEndedError(sessionId, life, current)
      if (events.slice(0, guarded).some((event) => guards.has(event.id))) {
        const { firstIndex, lastIndex } = judgeResubmission(
          sessionId,
          events.slice(0, guarded),
          contents.slice(0, guarded),
          guards,
        )
        // A whole partly guarded batch again: its unguarded events follow, by ID.
        const whole = logOf(sessionId).slice(firstIndex - 1, firstIndex - 1 + events.length)
        if (guarded < events.length && landedAt(whole, events))
          return { events: clone(whole), replayed: true }
        return { events: clone(logOf(sessionId).slice(firstIndex - 1, lastIndex)), replayed: true }
      }
      const log = logOf(sessionId)
      if (appendOptions.guardIds === false && expectedIndex !== log.length) {
        // Landed already (an earlier try whose answer was lost): its events
        // are at its index, with IDs nobody else writes.
        const there = log.slice(expectedIndex, (expectedIndex ?? 0) + events.length)
        if (landedAt(there, events)) return { events: clone(there), replayed: true }
      }
      if (fence && claims.get(keyOf(sessionId, fence.claim))?.attempt !== fence.attempt) {
        throw new FencedOutError(sessionId, fence.claim, fence.attempt)
      }
      if (cursor) {
        const at = cursors.get(keyOf(sessionId, cursor.name)) ?? 0
        if (at !== cursor.from)
          throw new CursorConflictError(sessionId, cursor.name, cursor.from, at)
      }
      if (expectedIndex !== undefined && expectedIndex !== log.length) {
        throw new AppendConflictError(sessionId, expectedIndex, log.length)
      }
      const timestamp = appendOptions.timestamp ?? now()
      const first = log.length + 1
      const lifeOfBatch = current ?? newLife()
      const stored = events.map((event, position): StoredEvent => {
        const payload = encoded[position]
        return {
          id: event.id,
          type: event.type,
          // Round-trip through the codec, as DynamoDB would.
          payload: decodePayload(
            payload?.kind === 'gzip' ? { gzip: payload.data } : { json: payload?.json },
          ),
          sessionId,
          life: lifeOfBatch,
          index: first + position,
          timestamp,
        }
      })
      for (const [position, event] of stored.slice(0, guarded).entries()) {
        guards.set(event.id, {
          eventId: event.id,
          sessionId,
          index: event.index,
          content: contents[position] as string,
          batchFirstIndex: first,
          batchSize: guarded,
        })
      }
      if (cursor) cursors.set(keyOf(sessionId, cursor.name), cursor.to)
      if (stored.length === 0) return { events: [], replayed: false }
      // Push in place: reads hand out copies, and a copy per append would make
      // a long session quadratic.
      if (!logs.has(sessionId)) logs.set(sessionId, log)
      lives.set(sessionId, lifeOfBatch)
      log.push(...stored)
      if (appendOptions.retainForMs !== undefined) {
        expiries.set(sessionId, now() + appendOptions.retainForMs)
      }
      wake(sessionId)
      return { events: clone(stored), replayed: false }
    },

    async read(sessionId: string, { after = 0, limit }: ReadOptions = {}): Promise<StoredEvent[]> {
      const log = logOf(sessionId)
      return clone(log.slice(after, limit === undefined ? undefined : after + limit))
    },

    async head(sessionId: string): Promise<number> {
      return logOf(sessionId).length
    },

    async restingHead(sessionId: string): Promise<RestingHead> {
      const log = logOf(sessionId)
      const life = log.at(-1)?.life
      return life ? { index: log.length, life } : { index: log.length }
    },

    tail(sessionId: string, { after = 0, signal }: TailOptions = {}): AsyncIterable<StoredEvent> {
      return tailLoop(
        {
          read: async (cursor) => clone(logOf(sessionId).slice(cursor)),
          waitForNews: (cursor, _idle, abortSignal) =>
            new Promise<void>((resolve) => {
              if (logOf(sessionId).length > cursor || abortSignal?.aborted) return resolve()
              const set = waiters.get(sessionId) ?? new Set()
              const done = (): void => {
                set.delete(done)
                abortSignal?.removeEventListener('abort', done)
                resolve()
              }
              set.add(done)
              waiters.set(sessionId, set)
              abortSignal?.addEventListener('abort', done, { once: true })
            }),
        },
        after,
        signal,
      )
    },

    async readSnapshot(
      sessionId: string,
      reducerName: string,
    ): Promise<StoredSnapshot | undefined> {
      const raw = snapshots.get(`${sessionId}\u0000${reducerName}`)
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
      const { length } = logOf(sessionId)
      if (length === 0 || length < snapshot.index) return
      if ((snapshot.life ?? '') !== lives.get(sessionId)) return
      const existing = await this.readSnapshot(sessionId, reducerName)
      if (existing && existing.index >= snapshot.index) return
      snapshots.set(key, JSON.stringify(snapshot))
    },

    async readCursor(sessionId: string, name: string): Promise<number> {
      return cursors.get(keyOf(sessionId, name)) ?? 0
    },

    async claim(sessionId: string, key: string, { ttlMs }: ClaimOptions): Promise<Claim> {
      const held = claims.get(keyOf(sessionId, key))
      const at = now()
      if (held && held.expiresAt > at)
        throw new ClaimHeldError(sessionId, key, held.attempt, held.expiresAt)
      const claim: Claim = { key, attempt: (held?.attempt ?? 0) + 1, expiresAt: at + ttlMs }
      claims.set(keyOf(sessionId, key), claim)
      return held ? { ...claim, previous: held.ended ?? 'expired' } : { ...claim }
    },

    async renewClaim(sessionId: string, claim: Claim, { ttlMs }: ClaimOptions): Promise<Claim> {
      const held = claims.get(keyOf(sessionId, claim.key))
      if (held?.attempt !== claim.attempt)
        throw new FencedOutError(sessionId, claim.key, claim.attempt)
      const renewed = { key: held.key, attempt: held.attempt, expiresAt: now() + ttlMs }
      claims.set(keyOf(sessionId, claim.key), renewed)
      return { ...renewed }
    },

    async readClaim(sessionId: string, key: string): Promise<Claim | undefined> {
      const held = claims.get(keyOf(sessionId, key))
      return held && { key: held.key, attempt: held.attempt, expiresAt: held.expiresAt }
    },

    async releaseClaim(sessionId: string, claim: Claim): Promise<void> {
      const held = claims.get(keyOf(sessionId, claim.key))
      if (held?.attempt !== claim.attempt) return
      claims.set(keyOf(sessionId, claim.key), { ...held, expiresAt: 0, ended: 'released' })
    },

    async erase(sessionId: string, options: { life?: string } = {}): Promise<EraseReceipt> {
      const log = logs.get(sessionId) ?? []
      if (options.life !== undefined && log.at(-1)?.life !== options.life) {
        return nothingErased(sessionId)
      }
      logs.delete(sessionId)
      lives.delete(sessionId)
      expiries.delete(sessionId)
      let idGuards = 0
      for (const event of log) {
        if (guards.get(event.id)?.sessionId !== sessionId) continue
        guards.delete(event.id)
        idGuards++
      }
      // Every other item kind is keyed by the session, then a NUL.
      const removeKeyed = (map: Map<string, unknown>): number => {
        let removed = 0
        for (const key of map.keys()) {
          if (!key.startsWith(keyOf(sessionId, ''))) continue
          map.delete(key)
          removed++
        }
        return removed
      }
      return {
        sessionId,
        events: log.length,
        heads: log.length > 0 ? 1 : 0,
        snapshots: removeKeyed(snapshots),
        cursors: removeKeyed(cursors),
        claims: removeKeyed(claims),
        idGuards,
      }
    },

    async revokeClaim(sessionId: string, key: string): Promise<void> {
      const held = claims.get(keyOf(sessionId, key))
      claims.set(keyOf(sessionId, key), {
        key,
        attempt: (held?.attempt ?? 0) + 1,
        expiresAt: 0,
        ended: 'revoked',
      })
    },
  }

  /**
   * Retention, lazily: a session past its expiry is erased whole before
   * anything reads or writes it, as DynamoDB's TTL and sweep would have.
   */
  async function expireIfDue(sessionId: string): Promise<void> {
    const expiry = expiries.get(sessionId)
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

/** Whether the events at an unguarded append's index are its own (by their IDs: nobody else's). */
function landedAt(there: readonly StoredEvent[], events: readonly NewEvent[]): boolean {
  return (
    there.length === events.length &&
    there.every((stored, position) => stored.id === events[position]?.id)
  )
}

/** Lives `<prefix>.1`, `<prefix>.2`, ...: unique per store. */
function lifeCounter(prefix: string): () => string {
  let started = 0
  return () => `${prefix}.${++started}`
}
