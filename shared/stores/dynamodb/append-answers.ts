import { judgeResubmission } from '../../log/duplicate-batch.ts'
import { AppendConflictError, guardedCount, LifeEndedError } from '../../log/errors.ts'
import type { NewEvent } from '../../log/event.ts'
import type { AppendOptions, AppendResult } from '../../log/event-store.ts'
import { eraseSession } from './erase-session.ts'
import { head, readGuards, readHeadItem, readLog } from './log-reads.ts'
import type { StoreContext } from './store-context.ts'

/** A guarded batch sent again: answered from its ID guards, as first stored (in the life asked for). */
export async function answerResubmission(
  context: StoreContext,
  sessionId: string,
  batch: readonly NewEvent[],
  batchContents: readonly string[],
  { guardIds, life }: AppendOptions,
): Promise<AppendResult> {
  // Judged on the guarded events alone: the rest have no guards to read.
  const guarded = guardedCount(guardIds, batch.length)
  const events = batch.slice(0, guarded)
  const contents = batchContents.slice(0, guarded)
  const guards = await readGuards(
    context,
    events.map((event) => event.id),
  )
  const { firstIndex, lastIndex } = judgeResubmission(sessionId, events, contents, guards)
  const stored = await readLog(context, sessionId, {
    after: firstIndex - 1,
    // A partly guarded batch: read on over its unguarded events, to answer it whole.
    limit: guarded < batch.length ? batch.length : lastIndex - firstIndex + 1,
  })
  const storedLife = stored[0]?.life
  if (life !== undefined && storedLife !== life)
    throw new LifeEndedError(sessionId, life, storedLife)
  const whole =
    stored.length === batch.length &&
    stored.every((event, position) => event.id === batch[position]?.id)
  return {
    events: whole ? stored : stored.slice(0, lastIndex - firstIndex + 1),
    replayed: true,
  }
}

/**
 * An unguarded append whose index is taken: a replay when its own events
 * are there (an earlier try whose answer was lost; their IDs are nobody
 * else's), else `APPEND_CONFLICT`.
 */
export async function conflictOrReplay(
  context: StoreContext,
  sessionId: string,
  events: readonly NewEvent[],
  { expectedIndex = 0, guardIds, life }: AppendOptions,
): Promise<AppendResult> {
  if (guardIds === false) {
    const there = await readLog(context, sessionId, {
      after: expectedIndex,
      limit: events.length,
    })
    if (
      there.length === events.length &&
      there.every((stored, position) => stored.id === events[position]?.id) &&
      (life === undefined || there[0]?.life === life)
    ) {
      return { events: there, replayed: true }
    }
  }
  throw new AppendConflictError(sessionId, expectedIndex, await head(context, sessionId))
}

/**
 * Retention's TTL deletes an idle session's head, and nothing may have
 * removed the rest yet. When the session has events but no head, this
 * finishes the erase (the append then starts the log over) and says so.
 * Headless, as the router's sweep: another process may start the session
 * over meanwhile, and its head then keeps every item it wrote. Only on an
 * append's failure paths: it costs nothing when appends succeed.
 */
export async function sweptHeadless(context: StoreContext, sessionId: string): Promise<boolean> {
  if (
    (await readHeadItem(context, sessionId)) !== undefined ||
    (await readLog(context, sessionId, { limit: 1 })).length === 0
  )
    return false
  context.hints.forget(sessionId)
  await eraseSession(context.client, context.tableName, sessionId, { headless: true })
  return true
}
