import { backoff, type RetryPolicy } from '../timing/backoff.ts'

// Pure data, no SDK imports: the CDK construct reads this at synth time, the
// local runner plays it, and the Lambda handlers take their lease settings
// from it, so what runs locally is what deploys.

import { QUEUE_LANES, type QueueLane } from '../runtime/lane-table.ts'

/** How a queue-fed function is deployed and fed. Times are in seconds. */
export interface QueueFunctionSpec {
  /** The export of `functions/lambda.ts` the function runs. */
  readonly handler: string
  /** A FIFO queue (a message group per session keeps each session's order). */
  readonly fifo: boolean
  /** Records per invocation. */
  readonly batchSize: number
  /** The function's timeout. */
  readonly timeoutSeconds: number
  /**
   * The most invocations the queue may hold at once: the event source
   * mapping's `MaximumConcurrency` (2 to 1,000) when `capped`, so a burst on
   * one queue cannot take the account's whole Lambda concurrency from the
   * others; the local runner plays it either way.
   */
  readonly maxConcurrency: number
  /**
   * Whether the construct sets `MaximumConcurrency` by default. A cap costs
   * money on an idle stack: with it set, Lambda keeps five pollers on the
   * queue, where an uncapped mapping scales down to as few as two when
   * traffic is low (Lambda developer guide, "Configuring scaling behavior
   * for SQS event source mappings"), and every empty long poll is an SQS
   * request. So the caps stay where a burst is not bounded otherwise: the
   * long lanes (a model step, a tool: minutes each) and the standard timer
   * queue (a burst of due timers has no bound); a FIFO queue of short
   * invocations runs at most one per session with work anyway.
   */
  readonly capped: boolean
}

/**
 * Every function that reads a queue. Each queue lane has one (see
 * shared/runtime/lane-table.ts: the rare model metadata lookup rides on the
 * handlers queue); internal services write to the ingress queue; due
 * timers arrive on the timer queue, a standard queue because FIFO queues
 * have no per-message delay.
 */
export const QUEUE_FUNCTIONS = {
  // The controller: short decisions, batched.
  admission: {
    handler: 'admissionLane',
    fifo: true,
    batchSize: 10,
    timeoutSeconds: 60,
    maxConcurrency: 20,
    capped: false,
  },
  // One model step, streamed: long outputs take minutes. One per invocation,
  // so a batch does not hold other sessions' work behind it. Its concurrency
  // is bounded by the model provider's rate limits more than by Lambda.
  generation: {
    handler: 'generationLane',
    fifo: true,
    batchSize: 1,
    timeoutSeconds: 600,
    maxConcurrency: 50,
    capped: true,
  },
  tools: {
    handler: 'toolsLane',
    fifo: true,
    batchSize: 1,
    timeoutSeconds: 300,
    maxConcurrency: 50,
    capped: true,
  },
  handlers: {
    handler: 'handlersLane',
    fifo: true,
    batchSize: 1,
    timeoutSeconds: 300,
    maxConcurrency: 10,
    capped: false,
  },
  ingress: {
    handler: 'ingress',
    fifo: true,
    batchSize: 10,
    timeoutSeconds: 60,
    maxConcurrency: 5,
    capped: false,
  },
  timers: {
    handler: 'timers',
    fifo: false,
    batchSize: 10,
    timeoutSeconds: 60,
    maxConcurrency: 5,
    capped: true,
  },
} as const satisfies Record<QueueLane | 'ingress' | 'timers', QueueFunctionSpec>

export type QueueFunction = keyof typeof QUEUE_FUNCTIONS
export const QUEUE_FUNCTION_NAMES = Object.keys(QUEUE_FUNCTIONS) as QueueFunction[]

export { QUEUE_LANES, type QueueLane }

/**
 * How the stream router's event source mapping reads the table's stream.
 *
 * The router is the backstop behind the fast path: every function that
 * appends sends its own wake-ups at once, so the router's copies matter only
 * when a process died between its append and its send (or for a writer that
 * does not send, such as `a2-aws import`). It can wait: Lambda gathers a
 * shard's records for up to `maxBatchingWindowSeconds` before it invokes
 * (Lambda developer guide, "Lambda parameters for Amazon DynamoDB event
 * source mappings": MaximumBatchingWindowInSeconds, 0 to 300, default 0),
 * so a turn's records reach the router in one or two invocations instead
 * of one every time Lambda polls the shard (about four times a second). The
 * cost is that a wake-up only the router sends arrives up to that much later.
 */
export const ROUTER_STREAM = {
  batchSize: 100,
  maxBatchingWindowSeconds: 3,
} as const

/** The construct's default redrive `maxReceiveCount`. */
export const DEFAULT_MAX_RECEIVE_COUNT = 5

/**
 * A queue's visibility timeout: 6x the timeout of the function reading it,
 * as AWS advises for Lambda event source mappings, so a message is not
 * received again while Lambda still retries a throttled invocation (AWS
 * Lambda developer guide, "Using Lambda with Amazon SQS"). SQS caps it at
 * 12 hours. A running lane does not wait this long to be retried: it leases
 * its messages for much less (see `VISIBILITY_LEASE`).
 */
export function visibilityTimeoutSeconds(functionTimeoutSeconds: number): number {
  return Math.min(12 * 3600, functionTimeoutSeconds * 6)
}

/**
 * How long a queue keeps a message nobody has received: a wake-up or an
 * input older than four days means the pipeline was down that long; it is
 * kept (SQS's default, stated) rather than dropped sooner. Dead-letter queues keep
 * theirs for SQS's maximum, 14 days, longer than their source queues as AWS
 * advises, since a dead-lettered message keeps its original enqueue time.
 */
export const MESSAGE_RETENTION_SECONDS = 4 * 24 * 3600
export const DEAD_LETTER_RETENTION_SECONDS = 14 * 24 * 3600

/**
 * How a running function holds its messages. The queue's visibility timeout
 * is long (see above), and an in-flight FIFO message blocks its whole message
 * group, so a crashed invocation would freeze its session's lane for up to an
 * hour. Instead the function sets its messages' visibility to `seconds` when
 * it starts and renews it every `renewEverySeconds` while it runs (never past
 * its own deadline): a killed container's messages come back within
 * `seconds`. A failed record comes back after a short backoff instead
 * (`retry`), and on its last receive at once, so a poison message reaches
 * the dead-letter queue within a minute.
 */
export interface VisibilityLease {
  seconds: number
  renewEverySeconds: number
  /**
   * A failed record's waits before it is received again, doubling per
   * receive (its attempts are the queue's `maxReceiveCount`).
   */
  retry: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>
}

export const VISIBILITY_LEASE: VisibilityLease = {
  // As long as a claim's TTL (claimTtlMs, 30 s): a dead attempt's message and
  // its claim come free at about the same time.
  seconds: 30,
  renewEverySeconds: 10,
  retry: { baseDelayMs: 2_000, maxDelayMs: 60_000 },
}

/**
 * The delay before a failed record is received again, in whole seconds (as
 * SQS takes a visibility): doubling per receive from the lease's first
 * wait, capped, with jitter (between half and all of it)
 * so sessions that failed together (a throttled table) do not retry together.
 * On the last receive it is 0: the next receive moves it to the dead-letter
 * queue.
 */
export function retryDelaySeconds(
  lease: VisibilityLease,
  receiveCount: number,
  maxReceiveCount: number,
  random: () => number = Math.random,
): number {
  if (receiveCount >= maxReceiveCount) return 0
  return Math.ceil(backoff(receiveCount - 1, { ...lease.retry, jitter: 'equal' }, random) / 1000)
}
