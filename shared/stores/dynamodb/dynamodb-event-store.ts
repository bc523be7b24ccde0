import type { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import type { NewEvent, StoredEvent } from '../../log/event.ts'
import type { AppendOptions, AppendResult, EventStore, TailOptions } from '../../log/event-store.ts'
import { backoff } from '../../timing/backoff.ts'
import { sleep } from '../../timing/sleep.ts'
import { keyedQueue } from '../keyed-queue.ts'
import { tailLoop } from '../tail-loop.ts'
import { appendNow } from './append-now.ts'
import { DEFAULT_APPEND_RETRY_MS } from './append-retry.ts'
import { dynamoDBClaims } from './claims.ts'
import { eraseSession } from './erase-session.ts'
import { head, readCursor, readHeadItem, readLog } from './log-reads.ts'
import { sessionHints } from './session-hints.ts'
import { dynamoDBSnapshots } from './snapshots.ts'
import type { AppendContext } from './store-context.ts'

/** A live tail's rhythm: a streaming step's batches, then idle backoff to a second. */
const DEFAULT_TAIL_POLL_MS = { min: 250, max: 1_000 }

export interface DynamoDBEventStoreOptions {
  client: DynamoDBClient
  tableName: string
  now?: () => number
  /**
   * How often a live tail (an SSE stream) reads the session. After a read
   * that found news it waits `min` (default 250 ms, the rhythm the progress
   * batcher writes a streaming step at, `progress.maxWindowMs`), then backs
   * off, doubling up to `max` (default 1 s) while nothing comes. Each read
   * is a `Query`: a faster rhythm costs requests and shows the same batches.
   */
  tailPollMs?: { min: number; max: number }
  /**
   * How long an append without `expectedIndex` keeps retrying after losing
   * the race for the next index to concurrent appenders, with a random,
   * growing wait between tries (default 10 s). Then it throws
   * `AppendContendedError` having written nothing.
   */
  appendRetryMs?: number
  /**
   * The ID of each new life the store starts (default: 72 random bits, 12
   * characters). Unique per session is enough; a simulation passes its own
   * for runs that replay exactly.
   */
  lifeIds?: () => string
}

/** How many sessions an instance keeps hints of, to skip a read before appending. */
const HEAD_CACHE_SIZE = 10_000

/** A new life's ID: 72 random bits, 12 characters. */
const randomLife = (): string =>
  btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(9))))
    .replaceAll('+', '-')
    .replaceAll('/', '_')

/**
 * The production store: one DynamoDB table (see `table-keys.ts` for the key
 * design). An append is one `TransactWriteItems` that moves the session head
 * from the index and the life it holds, writes the events, and claims an ID
 * guard per event; the conditions on those items are the only lock.
 *
 * Streamed progress is the exception (`progress: true` and `guardIds:
 * false`, one event at an expected index this instance wrote the log up to,
 * in its life, within `PROGRESS_LEASE_MS`, `progress-put.ts`): one `PutItem` of the event,
 * conditioned on its own item being free, 1 write unit where the
 * transaction with the head cost 4. The head item is then behind the log
 * until the next transaction, which checks that the event it builds on is
 * there; `head()` and every read go on past it. What makes a put that can see
 * only its own item safe against an erase is the erase's tombstones (see
 * `erase-session.ts`).
 *
 * This file wires the parts: reads in `log-reads.ts`; an append in
 * `append-now.ts` (its basis in `append-basis.ts`, what a cancelled
 * transaction leads to in `append-cancelled.ts`, replays and conflicts in
 * `append-answers.ts`, the lone put in `progress-put.ts`); claims,
 * snapshots and erase in files of their own. Each takes the instance's
 * `StoreContext` (`store-context.ts`).
 */
export function dynamoDBEventStore(options: DynamoDBEventStoreOptions): EventStore {
  const { client, tableName } = options
  const now = options.now ?? Date.now
  const poll = options.tailPollMs ?? DEFAULT_TAIL_POLL_MS
  const context: AppendContext = {
    client,
    tableName,
    now,
    hints: sessionHints(HEAD_CACHE_SIZE),
    newLife: options.lifeIds ?? randomLife,
    appendRetryMs: options.appendRetryMs ?? DEFAULT_APPEND_RETRY_MS,
  }
  const oneAtATime = keyedQueue()
  const read: EventStore['read'] = (sessionId, readOptions = {}) =>
    readLog(context, sessionId, readOptions)

  function append(
    sessionId: string,
    events: readonly NewEvent[],
    appendOptions: AppendOptions = {},
  ): Promise<AppendResult> {
    // One append per session at a time from this instance: concurrent ones
    // (a burst of pushes, the lanes of one process) queue here instead of
    // racing each other for the head. Other processes still race, below.
    const started = Date.now()
    return oneAtATime(sessionId, () =>
      appendNow(context, sessionId, events, appendOptions, started),
    )
  }

  return {
    append,
    read,
    head: (sessionId) => head(context, sessionId),
    // The head item alone: one read, behind the log only while a step streams.
    restingHead: async (sessionId) => {
      const item = await readHeadItem(context, sessionId)
      return item?.life ? { index: item.index, life: item.life } : { index: item?.index ?? 0 }
    },
    readCursor: (sessionId, name) => readCursor(context, sessionId, name),
    ...dynamoDBClaims(client, tableName, now),
    ...dynamoDBSnapshots(client, tableName, now),

    erase(sessionId: string, { life }: { life?: string } = {}) {
      // Queued behind this instance's appends to the session, and its head
      // hint forgotten: the next append starts the log over at 1.
      return oneAtATime(sessionId, async () => {
        context.hints.forget(sessionId)
        return eraseSession(client, tableName, sessionId, {
          now,
          ...(life === undefined ? {} : { life }),
        })
      })
    },

    tail(sessionId: string, { after = 0, signal }: TailOptions = {}): AsyncIterable<StoredEvent> {
      return tailLoop(
        {
          read: (cursor) => read(sessionId, { after: cursor }),
          waitForNews: (_cursor, idleRounds, abortSignal) =>
            sleep(
              backoff(idleRounds, { baseDelayMs: poll.min, maxDelayMs: poll.max, jitter: 'none' }),
              abortSignal,
            ),
        },
        after,
        signal,
      )
    },
  }
}
