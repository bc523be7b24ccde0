import {
  type TransactionCanceledException,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb'
import { eventContent } from '../../log/canonical-json.ts'
import { repeatedIds } from '../../log/duplicate-batch.ts'
import { checkUnguardedAppend, PartialDuplicateBatchError } from '../../log/errors.ts'
import type { NewEvent } from '../../log/event.ts'
import type { AppendOptions, AppendResult } from '../../log/event-store.ts'
import { encodeBatch } from '../payload-codec.ts'
import { type Basis, basisFromHints, endBasis } from './append-basis.ts'
import { type Attempt, afterCancellation } from './append-cancelled.ts'
import {
  type AppendTransaction,
  appendCancellation,
  appendTransaction,
  contentDigest,
} from './append-transaction.ts'
import { isAwsError } from './aws-error.ts'
import { progressPut } from './progress-put.ts'
import type { AppendContext } from './store-context.ts'
import { transactionWriteUnits } from './write-units.ts'

/**
 * One append, its turn come (see `dynamoDBEventStore`): checked, then a
 * progress put when it may be one, else a transaction, tried again from a
 * new basis for as long as its cancellations say to.
 */
export async function appendNow(
  context: AppendContext,
  sessionId: string,
  events: readonly NewEvent[],
  appendOptions: AppendOptions,
  started: number,
): Promise<AppendResult> {
  if (events.length === 0 && !appendOptions.cursor) return { events: [], replayed: false }
  const repeated = repeatedIds(events)
  if (repeated.length > 0)
    throw new PartialDuplicateBatchError(repeated, 'appear twice in the batch')
  checkUnguardedAppend(appendOptions)
  encodeBatch(events) // size limits, before any request
  const contents = events.map((event) => contentDigest(eventContent(event)))
  const put = await progressPut(context, sessionId, events, contents, appendOptions)
  if (put) return put
  const attempt: Attempt = {
    sessionId,
    events,
    contents,
    options: appendOptions,
    started,
    sentAt: started,
    corrections: 0,
  }
  let basis =
    basisFromHints(context, sessionId, appendOptions) ??
    (await endBasis(context, sessionId, appendOptions))
  for (let losses = 1; ; losses++) {
    const transaction = transactionOn(context, attempt, basis)
    try {
      return await commit(context, attempt, basis, transaction)
    } catch (error) {
      if (!isAwsError<TransactionCanceledException>(error, 'TransactionCanceledException'))
        throw error
      const cancelled = appendCancellation(error, transaction)
      const next = await afterCancellation(context, attempt, basis, { cancelled, error, losses })
      if ('answer' in next) return next.answer
      basis = next.basis
    }
  }
}

/** The attempt's transaction on `basis`, stamped now. */
function transactionOn(
  { tableName, now }: AppendContext,
  { sessionId, events, contents, options }: Attempt,
  basis: Basis,
): AppendTransaction {
  const timestamp = options.timestamp ?? now()
  const { retainForMs } = options
  // From the store's clock, not an import's timestamp: retention counts idle time.
  const expiresAt = retainForMs === undefined ? undefined : Math.ceil((now() + retainForMs) / 1000)
  return appendTransaction({
    tableName,
    sessionId,
    ...basis,
    events,
    contents,
    timestamp,
    expiresAt,
    options,
  })
}

/** Sends the transaction; when it commits, the hints learn where the log ends. */
async function commit(
  { client, now, hints }: AppendContext,
  attempt: Attempt,
  basis: Basis,
  transaction: AppendTransaction,
): Promise<AppendResult> {
  attempt.sentAt = Date.now()
  await client.send(new TransactWriteItemsCommand({ TransactItems: transaction.items }))
  const { sessionId, events } = attempt
  if (events.length > 0) {
    const last = basis.base + events.length
    hints.wrote(sessionId, basis.life, { last, headItem: last, at: now() })
  }
  return {
    events: transaction.stored,
    replayed: false,
    writeUnits: transactionWriteUnits(transaction.items),
  }
}
