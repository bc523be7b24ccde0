import {
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs'
import type { Dispatcher, WakeUp } from '../runtime/wake-up.ts'
import { PipelineError } from './errors.ts'
import { ROUTER_STREAM, VISIBILITY_LEASE } from './pipeline-functions.ts'
import { type QueueLane, type WakeUpMessage, wakeUpMessage } from './wake-up-message.ts'

/** SendMessageBatch takes at most 10 entries. */
const SQS_BATCH_SIZE = 10
/** Entries SQS refused for a transient reason are sent again this many times. */
const ENTRY_RETRIES = 2

export type LaneQueueUrls = Record<QueueLane, string>

export interface SqsDispatcherOptions {
  client: SQSClient
  /** One FIFO queue per lane. */
  queueUrls: LaneQueueUrls
  /**
   * How soon a lost wake-up is delivered again (the `Dispatcher` promise a
   * reader relies on; default: the visibility lease plus the router's
   * batching window, as deployed).
   */
  redeliversWithinMs?: number
}

const REDELIVERS_WITHIN_MS =
  (VISIBILITY_LEASE.seconds + ROUTER_STREAM.maxBatchingWindowSeconds) * 1000

/**
 * The AWS dispatcher: each wake-up becomes a message on its lane's SQS FIFO
 * queue. It is the fast path (called right after an append); the stream
 * router sends the same messages with `sendWakeUps` as the backstop, with
 * the same deduplication IDs (from each wake-up's `at`).
 *
 * @example
 * const dispatcher = sqsDispatcher({ client: new SQSClient({}), queueUrls })
 * agent({ name: 'support-agent', model, store, dispatcher })
 */
export function sqsDispatcher(options: SqsDispatcherOptions): Dispatcher {
  return {
    redeliversWithinMs: options.redeliversWithinMs ?? REDELIVERS_WITHIN_MS,
    wake: (wakeUps) => sendWakeUps(options, wakeUps),
  }
}

/**
 * Sends wake-ups in batches of 10 per queue. Throws a `SEND_FAILED`
 * `PipelineError` naming what could not be sent (after the sends that could).
 */
export async function sendWakeUps(
  options: Pick<SqsDispatcherOptions, 'client' | 'queueUrls'>,
  wakeUps: readonly WakeUp[],
): Promise<void> {
  const byLane = new Map<QueueLane, WakeUpMessage[]>()
  const seen = new Set<string>()
  for (const wakeUp of wakeUps) {
    const message = wakeUpMessage(wakeUp)
    // A batch may not repeat a deduplication ID's message; one copy is enough.
    const identity = `${message.lane}\u0000${message.groupId}\u0000${message.body}\u0000${message.deduplicationId}`
    if (seen.has(identity)) continue
    seen.add(identity)
    byLane.set(message.lane, [...(byLane.get(message.lane) ?? []), message])
  }
  const failures: string[] = []
  await Promise.all(
    [...byLane].map(async ([lane, messages]) => {
      for (let at = 0; at < messages.length; at += SQS_BATCH_SIZE) {
        failures.push(
          ...(await sendBatch(
            options.client,
            options.queueUrls[lane],
            messages.slice(at, at + SQS_BATCH_SIZE),
          )),
        )
      }
    }),
  )
  if (failures.length > 0) {
    throw new PipelineError(
      'SEND_FAILED',
      `Could not send ${failures.length} wake-up(s): ${failures.join('; ')}`,
    )
  }
}

async function sendBatch(
  client: SQSClient,
  queueUrl: string,
  messages: WakeUpMessage[],
): Promise<string[]> {
  let pending: SendMessageBatchRequestEntry[] = messages.map((message, position) => ({
    Id: String(position),
    MessageBody: message.body,
    MessageGroupId: message.groupId,
    MessageDeduplicationId: message.deduplicationId,
  }))
  let failures: string[] = []
  for (let attempt = 0; attempt <= ENTRY_RETRIES && pending.length > 0; attempt++) {
    const answer = await client.send(
      new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: pending }),
    )
    const failed = answer.Failed ?? []
    failures = failed.map(
      (entry) => `${entry.Code ?? 'error'}: ${entry.Message ?? ''} (${queueUrl})`,
    )
    // Sender faults (a bad entry) do not heal by sending again.
    if (failed.some((entry) => entry.SenderFault)) break
    const retry = new Set(failed.map((entry) => entry.Id))
    pending = pending.filter((entry) => retry.has(entry.Id))
  }
  return failures
}
