import type { StoredEvent } from '../../log/event.ts'
import type { EventStore, ReadOptions, RestingHead, TailOptions } from '../../log/event-store.ts'
import { tailLoop } from '../tail-loop.ts'
import { clone, keyOf, logOf, type MemoryState } from './memory-state.ts'

type ReadMethods = Pick<EventStore, 'read' | 'head' | 'restingHead' | 'tail' | 'readCursor'>

/** The memory store's reads: copies of the log, and a tail woken by each append. */
export function memoryReads(state: MemoryState): ReadMethods {
  return {
    async read(sessionId: string, { after = 0, limit }: ReadOptions = {}): Promise<StoredEvent[]> {
      const log = logOf(state, sessionId)
      return clone(log.slice(after, limit === undefined ? undefined : after + limit))
    },

    async head(sessionId: string): Promise<number> {
      return logOf(state, sessionId).length
    },

    async restingHead(sessionId: string): Promise<RestingHead> {
      const log = logOf(state, sessionId)
      const life = log.at(-1)?.life
      return life ? { index: log.length, life } : { index: log.length }
    },

    tail(sessionId: string, { after = 0, signal }: TailOptions = {}): AsyncIterable<StoredEvent> {
      return tailLoop(
        {
          read: async (cursor) => clone(logOf(state, sessionId).slice(cursor)),
          waitForNews: (cursor, _idle, abortSignal) =>
            new Promise<void>((resolve) => {
              if (logOf(state, sessionId).length > cursor || abortSignal?.aborted) return resolve()
              const set = state.waiters.get(sessionId) ?? new Set()
              const done = (): void => {
                set.delete(done)
                abortSignal?.removeEventListener('abort', done)
                resolve()
              }
              set.add(done)
              state.waiters.set(sessionId, set)
              abortSignal?.addEventListener('abort', done, { once: true })
            }),
        },
        after,
        signal,
      )
    },

    async readCursor(sessionId: string, name: string): Promise<number> {
      return state.cursors.get(keyOf(sessionId, name)) ?? 0
    },
  }
}
