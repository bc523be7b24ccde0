import {
  AppendConflictError,
  AppendContendedError,
  CursorConflictError,
  FencedOutError,
  guardedCount,
  LifeEndedError,
} from '../../log/errors.ts'
import type { NewEvent } from '../../log/event.ts'
import type { AppendOptions, AppendResult } from '../../log/event-store.ts'
import { sleep } from '../../timing/sleep.ts'
import { answerResubmission, conflictOrReplay, sweptHeadless } from './append-answers.ts'
import { type Basis, creation, endBasis } from './append-basis.ts'
import { appendRetryDelay } from './append-retry.ts'
import type { AppendCancellation } from './append-transaction.ts'
import { readCursor, readGuards, readHeadItem } from './log-reads.ts'
import type { AppendContext } from './store-context.ts'

/** How often one append corrects its idea of a head item behind the log before it contends. */
const HEAD_ITEM_CORRECTIONS = 3

/** One append on its way: what it writes, and how it has fared so far. */
export interface Attempt {
  readonly sessionId: string
  readonly events: readonly NewEvent[]
  /** The events' content digests, for their ID guards. */
  readonly contents: readonly string[]
  readonly options: AppendOptions
  /** When the append was asked for (`Date.now()`): its retries count from there. */
  readonly started: number
  /** When its last transaction was sent (`Date.now()`). */
  sentAt: number
  /** How often it corrected its idea of a head item behind the log. */
  corrections: number
}

/** What an append does after its transaction was cancelled: answer, or try again from a basis. */
type Next = { readonly answer: AppendResult } | { readonly basis: Basis }

type HeadMoved = Extract<AppendCancellation, { reason: 'head-moved' }>

/**
 * What a cancelled transaction leads to: an answer (a replay, or the
 * conflict thrown), or the basis to try again from. `error` is the
 * cancellation, thrown again when nothing here explains it; `losses` counts
 * the tries so far, for the wait between contended ones.
 */
export async function afterCancellation(
  context: AppendContext,
  attempt: Attempt,
  basis: Basis,
  { cancelled, error, losses }: { cancelled: AppendCancellation; error: unknown; losses: number },
): Promise<Next> {
  const { sessionId, events, contents, options } = attempt
  const { expectedIndex, cursor, fence } = options
  if (cancelled.reason === 'resubmission') {
    // The ID guards of an expired session's leftovers are no replay.
    if (await sweptHeadless(context, sessionId)) return { basis: creation(context) }
    return { answer: await answerResubmission(context, sessionId, events, contents, options) }
  }
  if (cancelled.reason === 'fenced' && fence) {
    throw new FencedOutError(sessionId, fence.claim, fence.attempt)
  }
  if (cancelled.reason === 'cursor-moved' && cursor) {
    const actual = await readCursor(context, sessionId, cursor.name)
    throw new CursorConflictError(sessionId, cursor.name, cursor.from, actual)
  }
  if (
    (cancelled.reason === 'unexplained' || cancelled.reason === 'index-taken') &&
    (await sweptHeadless(context, sessionId))
  ) {
    return { basis: creation(context) }
  }
  if (cancelled.reason === 'raced') {
    await contended(context, attempt, losses)
    return { basis }
  }
  if (cancelled.reason === 'gap' || cancelled.reason === 'index-taken') {
    // The log is not at base in its life: short of it (an expected
    // index it never reached), or past it (another writer's events).
    if (expectedIndex !== undefined)
      return { answer: await conflictOrReplay(context, sessionId, events, options) }
    if (cancelled.reason === 'index-taken') await contended(context, attempt, losses)
    return { basis: await endBasis(context, sessionId, options) }
  }
  if (cancelled.reason !== 'head-moved') throw error
  return afterHeadMoved(context, attempt, basis, cancelled, losses)
}

/**
 * The head moved, or is of another life, or is gone. A replay still wins
 * over a stale expected index, and some emulators report only the first
 * failed condition, so look: when every guard is reported as passed, no ID
 * was known; otherwise look.
 */
async function afterHeadMoved(
  context: AppendContext,
  attempt: Attempt,
  basis: Basis,
  cancelled: HeadMoved,
  losses: number,
): Promise<Next> {
  const { sessionId, events, contents, options } = attempt
  const { expectedIndex, life } = options
  if (
    guardedCount(options.guardIds, events.length) > 0 &&
    !cancelled.guardsPassed &&
    (await readGuards(context, [events[0]?.id as string])).size > 0 &&
    !(await sweptHeadless(context, sessionId))
  ) {
    return { answer: await answerResubmission(context, sessionId, events, contents, options) }
  }
  const found = cancelled.reportedHead ?? (await readHeadItem(context, sessionId))
  if (found) context.hints.sawHeadItem(sessionId, found.life, found.index)
  if (life !== undefined && found?.life !== life)
    throw new LifeEndedError(sessionId, life, found?.life)
  if (found === undefined) {
    // No head: erased or expired since this instance looked.
    if (expectedIndex !== undefined && expectedIndex > 0)
      throw new AppendConflictError(sessionId, expectedIndex, 0)
    return { basis: creation(context) }
  }
  const conflict = async (): Promise<Next> => ({
    answer: await conflictOrReplay(context, sessionId, events, options),
  })
  if (basis.base === 0) {
    // It meant to start the session, which has a log: at its end, or a conflict.
    if (expectedIndex === 0) return conflict()
    return {
      basis: { base: found.index, life: found.life, headItem: found.index, baseSeen: false },
    }
  }
  if (found.life !== basis.life) {
    // What this instance knew was of an ended life: nothing of it holds.
    const base = expectedIndex ?? found.index
    if (found.index > base) return conflict()
    return { basis: { base, life: found.life, headItem: found.index, baseSeen: false } }
  }
  if (found.index <= basis.base && attempt.corrections++ < HEAD_ITEM_CORRECTIONS) {
    // The head item is behind base (progress since) or where base is:
    // the append goes again conditioned on it, and the gap check (or
    // the events' own conditions) tells whether the log is at base.
    return { basis: { ...basis, headItem: found.index } }
  }
  if (expectedIndex !== undefined) return conflict()
  // "Append at the end": wait for a turn rather than fail, then look
  // again, as others may have appended meanwhile.
  await contended(context, attempt, losses)
  return { basis: await endBasis(context, sessionId, options) }
}

/** A lost race for the index: wait a random, growing while, or give up once `appendRetryMs` has passed. */
async function contended(
  { appendRetryMs }: AppendContext,
  { sessionId, started, sentAt }: Attempt,
  losses: number,
): Promise<void> {
  const retried = Date.now() - started
  if (retried >= appendRetryMs) throw new AppendContendedError(sessionId, retried)
  const delay = appendRetryDelay(losses, Date.now() - sentAt)
  await sleep(Math.min(delay, appendRetryMs - retried))
}
