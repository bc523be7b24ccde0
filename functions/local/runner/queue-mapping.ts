import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs'
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda'
import {
  QUEUE_FUNCTIONS,
  type QueueFunction,
  type VisibilityLease,
} from '../../../shared/aws/pipeline-functions.ts'
import type { RunnerContext } from './runner-context.ts'

/** One queue function's event source mapping, as `startLocalPipeline` runs it. */
export interface QueueMapping {
  name: QueueFunction
  queue: { url: string; arn: string }
  /** The function's timeout, where a test needs it shorter than deployed. */
  timeoutMs: number
  lease: VisibilityLease
  onInvoke: ((name: QueueFunction, records: readonly SQSRecord[]) => void) | undefined
}

/**
 * One poll of a queue (true when it found work), as Lambda's SQS event
 * source mapping reads it: up to
 * `maxConcurrency` invocations at once per queue (FIFO message groups in
 * flight are not received again: the emulator holds them back, as SQS
 * does), each cut off at its function's timeout. Successes are deleted;
 * failures and timed-out batches are left alone and come back when their
 * visibility ends, which is what the handler set (a lease, a retry delay):
 * exactly what Lambda does.
 *
 * One difference, because here the mapping dies with the functions: a
 * message is received already leased (`VisibilityTimeout` is the lease's,
 * which the handler then renews), not under the queue's own timeout. On
 * AWS the mapping outlives a container and a dead invocation's messages
 * come back one lease after its last renewal. A runner killed (SIGKILL)
 * while a receive was on its way back would otherwise leave that message,
 * and its session's whole FIFO group, in flight for the queue's visibility
 * timeout (6x the function's: an hour for a model step), with no lease
 * set and nobody to set one; the router's copy and a reader's recovery
 * wake-up are the same wake-up and SQS drops them as duplicates. Leased at
 * the receive, it comes back within a lease, as after any crash.
 */
export function queuePoll(
  context: RunnerContext,
  sqs: SQSClient,
  mapping: QueueMapping,
): () => Promise<boolean> {
  const { name, queue, lease } = mapping
  const spec = QUEUE_FUNCTIONS[name]
  const inFlight = new Set<Promise<void>>()
  return async () => {
    if (inFlight.size >= spec.maxConcurrency) {
      await Promise.race(inFlight)
      return true
    }
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queue.url,
        MaxNumberOfMessages: spec.batchSize,
        WaitTimeSeconds: 0,
        VisibilityTimeout: lease.seconds,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    )
    if (Messages.length === 0) return false
    const { stats, logger } = context
    stats.laneInvocations[name] = (stats.laneInvocations[name] ?? 0) + 1
    const invocation = invoke(context, sqs, mapping, Messages).catch((error: unknown) => {
      if (context.running())
        logger.warn(`a2 local runner: ${name} invocation failed: ${String(error)}`)
    })
    inFlight.add(invocation)
    void invocation.finally(() => {
      inFlight.delete(invocation)
      // What it appended and sent, and the message group its deleted
      // messages held back, are work for the stream and the queues.
      context.idle.wake()
    })
    return true
  }
}

/**
 * One invocation, cut off at the function's timeout (or by `kill()`):
 * the messages it handled are deleted; failed and timed-out ones come back
 * when their visibility ends.
 */
async function invoke(
  { handlers, stats, logger, invocations }: RunnerContext,
  sqs: SQSClient,
  { name, queue, timeoutMs, onInvoke }: QueueMapping,
  messages: Message[],
): Promise<void> {
  const event: SQSEvent = { Records: messages.map((message) => sqsRecord(message, queue.arn)) }
  let deadline = Date.now() + timeoutMs
  let timer: ReturnType<typeof setTimeout> | undefined
  let killed: (outcome: 'killed') => void = () => {}
  const ended = new Promise<'timed out' | 'killed'>((resolve) => {
    timer = setTimeout(() => resolve('timed out'), timeoutMs)
    killed = resolve
  })
  const invocation = {
    records: event.Records,
    kill: () => {
      deadline = 0
      killed('killed')
    },
  }
  invocations.add(invocation)
  onInvoke?.(name, event.Records)
  const context = {
    ...lambdaContext(name),
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  }
  const outcome = await Promise.race([handlers[name](event, context), ended]).finally(() => {
    clearTimeout(timer)
    invocations.delete(invocation)
  })
  if (outcome === 'killed') {
    stats.kills[name] = (stats.kills[name] ?? 0) + 1
    return
  }
  if (outcome === 'timed out') {
    stats.timeouts[name] = (stats.timeouts[name] ?? 0) + 1
    logger.warn(
      `a2 local runner: the ${name} function timed out after ${timeoutMs / 1000} s; its messages come back when their visibility ends`,
    )
    return
  }
  const failed = new Set(outcome.batchItemFailures.map((failure) => failure.itemIdentifier))
  const done = messages.filter((message) => !failed.has(message.MessageId as string))
  if (done.length === 0) return
  await sqs.send(
    new DeleteMessageBatchCommand({
      QueueUrl: queue.url,
      Entries: done.map((message, n) => ({
        Id: String(n),
        ReceiptHandle: message.ReceiptHandle,
      })),
    }),
  )
}

/** The part of Lambda's context the handlers read (the runner adds the time left). */
function lambdaContext(name: QueueFunction): Omit<Context, 'getRemainingTimeInMillis'> {
  return {
    functionName: `a2-local-${name}`,
    awsRequestId: crypto.randomUUID(),
  } as Context
}

function sqsRecord(message: Message, queueArn: string): SQSRecord {
  return {
    messageId: message.MessageId as string,
    receiptHandle: message.ReceiptHandle as string,
    body: message.Body ?? '',
    attributes: (message.Attributes ?? {}) as unknown as SQSRecord['attributes'],
    messageAttributes: {},
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: queueArn.split(':')[3] ?? 'us-east-1',
  }
}
