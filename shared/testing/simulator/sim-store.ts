import { AsyncLocalStorage } from 'node:async_hooks'
import type { NewEvent, StoredEvent } from '../../log/event.ts'
import type { AppendOptions, AppendResult, EventStore } from '../../log/event-store.ts'
import type { Faults } from './faults.ts'
import type { Random } from './random.ts'
import { workContext } from './sim-process.ts'
import {
  contendedAppend,
  requestTimeout,
  THROTTLING_ERRORS,
  throttlingError,
} from './store-faults.ts'
import type { World } from './world.ts'

const WRITES = new Set([
  'append',
  'claim',
  'renewClaim',
  'releaseClaim',
  'revokeClaim',
  'writeSnapshot',
])
const READS = new Set(['read', 'head', 'restingHead', 'readSnapshot'])
const CALLS = new Set([
  ...WRITES,
  'read',
  'head',
  'restingHead',
  'readSnapshot',
  'readCursor',
  'readClaim',
  'erase',
])

/**
 * The process a store call is for, while the shared store serves it: the
 * store reads that process's clock (a DynamoDB adapter runs in each process,
 * on its clock: its claims' expiry conditions and its events' timestamps).
 */
export const storeCaller = new AsyncLocalStorage<number>()

export interface StoreHooks {
  /** An append committed (whoever hears of it): the stream router sees it. */
  committed(sessionId: string, events: readonly StoredEvent[]): void
  /** An append returned these events to its caller: none may be lost. */
  returned(sessionId: string, events: readonly StoredEvent[]): void
  /** An append failed as its caller hears it (what landed, the caller cannot know). */
  failed?(sessionId: string): void
  /** A process read a stored reducer snapshot (a cold read of a long session), or wrote one. */
  snapshot?(sessionId: string, how: 'read' | 'written'): void
}

/**
 * The shared store as one process sees it: every call is a call into the
 * world (answered after a latency, a point where the process may die), and
 * may meet DynamoDB's faults (store-faults.ts) where the adapter's caller
 * would: throttling before anything is written, a transaction conflict that
 * makes the append slow (or, rarely, contended), a timeout after the write
 * committed, and the SDK's retry of a committed write (the caller hears the
 * second answer: a replay, a conflict, a held claim).
 */
export function simStore(
  world: World,
  owner: number,
  store: EventStore,
  faults: Faults | undefined,
  latency: Random,
  hooks: StoreHooks,
): EventStore {
  const perform = async (method: string, args: unknown[]): Promise<unknown> => {
    const result = await storeCaller.run(owner, () =>
      (store[method as keyof EventStore] as (...a: unknown[]) => Promise<unknown>)(...args),
    )
    if (method === 'append') {
      const { events, replayed } = result as AppendResult
      if (!replayed && events.length > 0) hooks.committed(args[0] as string, events)
    }
    if (method === 'readSnapshot' && result !== undefined)
      hooks.snapshot?.(args[0] as string, 'read')
    if (method === 'writeSnapshot') hooks.snapshot?.(args[0] as string, 'written')
    return result
  }
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      // A method the store lacks stays absent (an optional one: `restingHead`).
      if (typeof property !== 'string' || !CALLS.has(property) || value === undefined) return value
      return async (...args: unknown[]) => {
        const sessionId = args[0] as string
        let ms = latency.between(1, 8)
        const conflicted =
          faults !== undefined &&
          property === 'append' &&
          faults.strikes('store.transaction-conflict')
        // The adapter retries a conflicted transaction with backoff: the append is slow.
        if (conflicted) ms += faults.between(20, 600)
        const label = `store.${property}${describe(property, args)}`
        // A read by a process's work on this session (a takeover's, say):
        // what a racy freeze of another process on it thaws at.
        const work = workContext.getStore()
        const racing = work?.sessionId === sessionId && READS.has(property)
        const call = world.call(
          owner,
          label,
          ms,
          async () => {
            if (racing) world.raced(sessionId, owner)
            if (!faults) return perform(property, args)
            if (faults.strikes('store.throttled')) {
              world.log(`p${owner}`, `fault store.throttled at ${label}`)
              throw throttlingError(faults.pick(THROTTLING_ERRORS))
            }
            if (conflicted && faults.between(0, 9) === 0) throw contendedAppend(sessionId)
            if (!WRITES.has(property)) return perform(property, args)
            if (faults.strikes('store.timeout-after-commit')) {
              await perform(property, args).catch(() => undefined)
              world.log(`p${owner}`, `fault store.timeout-after-commit at ${label}`)
              throw requestTimeout()
            }
            if (faults.strikes('store.retried-after-commit')) {
              await perform(property, args).catch(() => undefined)
              world.log(`p${owner}`, `fault store.retried-after-commit at ${label}`)
            }
            return perform(property, args)
          },
          // A process freezes in its lanes' work (a user's request to a
          // frozen server is another story: see docs/testing.md).
          { freezable: work !== undefined },
        )
        const result = await (property === 'append' && hooks.failed
          ? call.catch((error: unknown) => {
              hooks.failed?.(sessionId)
              throw error
            })
          : call)
        if (property === 'append') hooks.returned(sessionId, (result as AppendResult).events)
        return result
      }
    },
  })
}

function describe(method: string, args: unknown[]): string {
  const sessionId = String(args[0])
  if (method === 'append') {
    const events = args[1] as readonly NewEvent[]
    const options = args[2] as AppendOptions | undefined
    const types = events.map((event) => event.type.replace(/^ai\./, ''))
    return `(${sessionId}: ${[...types, ...(options?.cursor ? [`cursor ${options.cursor.name}`] : [])].join(', ')})`
  }
  const key = args[1]
  if (typeof key === 'string') return `(${sessionId}: ${key.split(':')[0]})`
  const claim = args[1] as { key?: string } | undefined
  return claim?.key ? `(${sessionId}: ${claim.key.split(':')[0]})` : `(${sessionId})`
}
