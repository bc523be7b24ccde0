import { eventContent } from '../../log/canonical-json.ts'
import { judgeResubmission, repeatedIds } from '../../log/duplicate-batch.ts'
import {
  AppendConflictError,
  CursorConflictError,
  checkUnguardedAppend,
  FencedOutError,
  guardedCount,
  LifeEndedError,
  PartialDuplicateBatchError,
} from '../../log/errors.ts'
import { type NewEvent, type StoredEvent, versionField } from '../../log/event.ts'
import type { AppendOptions, AppendResult } from '../../log/event-store.ts'
import { decodePayload, encodeBatch } from '../payload-codec.ts'
import { clone, keyOf, logOf, type MemoryState, wake } from './memory-state.ts'

/** `EventStore.append` on the memory store: the DynamoDB store's rules, checked in its order. */
export async function memoryAppend(
  state: MemoryState,
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
  const current = state.lives.get(sessionId)
  if (life !== undefined && life !== current) throw new LifeEndedError(sessionId, life, current)
  const replay = replayOf(state, sessionId, events, contents, appendOptions)
  if (replay) return replay
  const log = logOf(state, sessionId)
  if (fence && state.claims.get(keyOf(sessionId, fence.claim))?.attempt !== fence.attempt) {
    throw new FencedOutError(sessionId, fence.claim, fence.attempt)
  }
  if (cursor) {
    const at = state.cursors.get(keyOf(sessionId, cursor.name)) ?? 0
    if (at !== cursor.from) throw new CursorConflictError(sessionId, cursor.name, cursor.from, at)
  }
  if (expectedIndex !== undefined && expectedIndex !== log.length) {
    throw new AppendConflictError(sessionId, expectedIndex, log.length)
  }
  const timestamp = appendOptions.timestamp ?? state.now()
  const first = log.length + 1
  const lifeOfBatch = current ?? state.newLife()
  const stored = storedBatch(sessionId, events, encoded, { first, life: lifeOfBatch, timestamp })
  for (const [position, event] of stored.slice(0, guarded).entries()) {
    state.guards.set(event.id, {
      eventId: event.id,
      sessionId,
      index: event.index,
      content: contents[position] as string,
      batchFirstIndex: first,
      batchSize: guarded,
    })
  }
  if (cursor) state.cursors.set(keyOf(sessionId, cursor.name), cursor.to)
  if (stored.length === 0) return { events: [], replayed: false }
  // Push in place: reads hand out copies, and a copy per append would make
  // a long session quadratic.
  if (!state.logs.has(sessionId)) state.logs.set(sessionId, log)
  state.lives.set(sessionId, lifeOfBatch)
  log.push(...stored)
  if (appendOptions.retainForMs !== undefined) {
    state.expiries.set(sessionId, state.now() + appendOptions.retainForMs)
  }
  wake(state, sessionId)
  return { events: clone(stored), replayed: false }
}

/**
 * The answer to a batch that landed already: a guarded one from its ID
 * guards, an unguarded one found at its index by its IDs (an earlier try
 * whose answer was lost). Undefined when it is new.
 */
function replayOf(
  state: MemoryState,
  sessionId: string,
  events: readonly NewEvent[],
  contents: readonly string[],
  { guardIds, expectedIndex }: AppendOptions,
): AppendResult | undefined {
  const guarded = guardedCount(guardIds, events.length)
  const log = logOf(state, sessionId)
  if (events.slice(0, guarded).some((event) => state.guards.has(event.id))) {
    const { firstIndex, lastIndex } = judgeResubmission(
      sessionId,
      events.slice(0, guarded),
      contents.slice(0, guarded),
      state.guards,
    )
    // A whole partly guarded batch again: its unguarded events follow, by ID.
    const whole = log.slice(firstIndex - 1, firstIndex - 1 + events.length)
    if (guarded < events.length && landedAt(whole, events))
      return { events: clone(whole), replayed: true }
    return { events: clone(log.slice(firstIndex - 1, lastIndex)), replayed: true }
  }
  if (guardIds === false && expectedIndex !== log.length) {
    // Landed already: its events are at its index, with IDs nobody else writes.
    const there = log.slice(expectedIndex, (expectedIndex ?? 0) + events.length)
    if (landedAt(there, events)) return { events: clone(there), replayed: true }
  }
  return undefined
}

/** The batch as it will be stored, from `first` on, in `life`. */
function storedBatch(
  sessionId: string,
  events: readonly NewEvent[],
  encoded: ReturnType<typeof encodeBatch>,
  { first, life, timestamp }: { first: number; life: string; timestamp: number },
): StoredEvent[] {
  return events.map((event, position): StoredEvent => {
    const payload = encoded[position]
    return {
      id: event.id,
      type: event.type,
      // Round-trip through the codec, as DynamoDB would.
      payload: decodePayload(
        payload?.kind === 'gzip' ? { gzip: payload.data } : { json: payload?.json },
      ),
      sessionId,
      life,
      index: first + position,
      timestamp,
      ...versionField(event.version),
    }
  })
}

/** Whether the events at an unguarded append's index are its own (by their IDs: nobody else's). */
function landedAt(there: readonly StoredEvent[], events: readonly NewEvent[]): boolean {
  return (
    there.length === events.length &&
    there.every((stored, position) => stored.id === events[position]?.id)
  )
}
