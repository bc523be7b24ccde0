import {
  ChangeMessageVisibilityBatchCommand,
  type ChangeMessageVisibilityBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs'
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda'
import { messageOf } from '../../log/message-of.ts'
import { retryDelaySeconds, type VisibilityLease } from '../pipeline-functions.ts'
import type { PipelineLogger } from './pipeline-agent.ts'

export type SqsHandler = (event: SQSEvent, context?: Context) => Promise<SQSBatchResponse>

const FAILS_FOR_GOOD = new WeakSet<SQSRecord>()

/**
 * Marks a record that can never succeed (a malformed message, events the log
 * refuses for what they are): its failure brings it back at once, so it
 * reaches the dead-letter queue after the queue's receives in moments,
 * instead of holding its FIFO message group through the backoff (about 30 s).
 */
export function failsForGood(record: SQSRecord): void {
  FAILS_FOR_GOOD.add(record)
}

/** ChangeMessageVisibilityBatch takes at most 10 entries. */
const SQS_BATCH_SIZE = 10

export interface LeaseOptions {
  /** The SDK client, created on first use (once per container). */
  client: () => SQSClient
  /** The queue the handler reads. */
  queueUrl: string
  lease: VisibilityLease
  /** The queue's redrive `maxReceiveCount`: the last receive is retried at once, into the DLQ. */
  maxReceiveCount: number
  logger: PipelineLogger
}

/**
 * Holds a batch's messages for as long as the invocation runs, and no longer
 * (see `VisibilityLease`): their visibility is set to `lease.seconds` at once
 * and renewed while the handler runs, never past the invocation's deadline;
 * records the handler reports failed come back after a short backoff. Lambda
 * itself never shortens a visibility timeout, so without this a crashed or
 * failed invocation's FIFO message group waits out the queue's visibility
 * timeout (6x the function timeout: up to an hour for generation).
 *
 * A lease call that fails is logged and costs only speed: the message then
 * comes back at the queue's own visibility timeout, as it would without this.
 */
export function leasingMessages(handler: SqsHandler, options: LeaseOptions): SqsHandler {
  const { lease, logger } = options
  const setVisibility = async (entries: [SQSRecord, number][]): Promise<void> => {
    try {
      for (let at = 0; at < entries.length; at += SQS_BATCH_SIZE) {
        const answer = await options.client().send(
          new ChangeMessageVisibilityBatchCommand({
            QueueUrl: options.queueUrl,
            Entries: entries.slice(at, at + SQS_BATCH_SIZE).map(
              ([record, seconds], n): ChangeMessageVisibilityBatchRequestEntry => ({
                Id: String(at + n),
                ReceiptHandle: record.receiptHandle,
                VisibilityTimeout: seconds,
              }),
            ),
          }),
        )
        if (answer.Failed?.length) {
          logger.warn('a2: could not change the visibility of some messages', {
            queueUrl: options.queueUrl,
            failed: answer.Failed.map((entry) => `${entry.Code}: ${entry.Message}`),
          })
        }
      }
    } catch (error) {
      logger.warn('a2: could not change the visibility of a batch', {
        queueUrl: options.queueUrl,
        error: messageOf(error),
      })
    }
  }

  return async (event, context) => {
    const records = event.Records ?? []
    const renewEveryMs = lease.renewEverySeconds * 1000
    // Not awaited: the work does not wait for its lease. Calls are chained so
    // a late renewal never overwrites the retry delay set at the end.
    let leased = setVisibility(records.map((record) => [record, lease.seconds]))
    const renewal = setInterval(() => {
      // A timed-out invocation renews nothing: its messages come back one
      // lease after its deadline, as they would after a crash.
      const remaining = context?.getRemainingTimeInMillis() ?? Number.POSITIVE_INFINITY
      if (remaining < renewEveryMs) return clearInterval(renewal)
      leased = leased.then(() => setVisibility(records.map((record) => [record, lease.seconds])))
    }, renewEveryMs)
    let failed: SQSRecord[] = records
    try {
      const result = await handler(event, context)
      const failedIds = new Set(result.batchItemFailures.map((failure) => failure.itemIdentifier))
      failed = records.filter((record) => failedIds.has(record.messageId))
      return result
    } finally {
      clearInterval(renewal)
      await leased
      if (failed.length > 0) {
        await setVisibility(
          failed.map((record) => [
            record,
            FAILS_FOR_GOOD.has(record)
              ? 0
              : retryDelaySeconds(lease, receiveCountOf(record), options.maxReceiveCount),
          ]),
        )
      }
    }
  }
}

function receiveCountOf(record: SQSRecord): number {
  const count = Number(record.attributes?.ApproximateReceiveCount)
  return Number.isInteger(count) && count >= 1 ? count : 1
}
