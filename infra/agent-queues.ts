import { Duration } from 'aws-cdk-lib'
import * as sqs from 'aws-cdk-lib/aws-sqs'
import type { Construct } from 'constructs'
import {
  DEAD_LETTER_RETENTION_SECONDS,
  MESSAGE_RETENTION_SECONDS,
  QUEUE_FUNCTION_NAMES,
  QUEUE_FUNCTIONS,
  type QueueFunction,
  visibilityTimeoutSeconds,
} from '../shared/aws/pipeline-functions.ts'
import { pascal } from './pascal.ts'

/** A function's queue and the dead-letter queue it gives up to. */
export interface FunctionQueue {
  main: sqs.Queue
  dlq: sqs.Queue
}

export interface AgentQueues {
  /** One queue per queue function, derived from the lane table (QUEUE_FUNCTIONS). */
  byFunction: Record<QueueFunction, FunctionQueue>
  /** Timer firings Scheduler could not deliver. */
  schedulerDeadLetterQueue: sqs.Queue
  /** Stream batches the router gave up on. */
  routerFailureQueue: sqs.Queue
}

/**
 * Every queue of the agent, in the agent's own scope with the IDs they
 * always had (their logical IDs survive upgrades): SSE-managed encryption,
 * TLS only, high-throughput FIFO for the lanes and ingress, each visibility
 * timeout derived from its function's timeout.
 */
export function agentQueues(
  scope: Construct,
  options: { timeoutOf: (name: QueueFunction) => Duration; maxReceiveCount: number },
): AgentQueues {
  const queue = (name: string, props: sqs.QueueProps): sqs.Queue =>
    new sqs.Queue(scope, name, {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      ...(props.fifo
        ? {
            // High-throughput FIFO: a limit per message group (session)
            // instead of 300 transactions per second per API action for the
            // whole queue. Deduplication IDs already carry the session.
            fifoThroughputLimit: sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
            deduplicationScope: sqs.DeduplicationScope.MESSAGE_GROUP,
          }
        : {}),
      ...props,
    })
  const deadLetterQueue = (name: string, fifo: boolean): sqs.Queue =>
    queue(name, {
      ...(fifo ? { fifo: true } : {}),
      retentionPeriod: Duration.seconds(DEAD_LETTER_RETENTION_SECONDS),
    })
  const functionQueue = (name: QueueFunction): FunctionQueue => {
    const spec = QUEUE_FUNCTIONS[name]
    const dlq = deadLetterQueue(`${pascal(name)}DeadLetterQueue`, spec.fifo)
    const main = queue(`${pascal(name)}Queue`, {
      ...(spec.fifo ? { fifo: true } : {}),
      ...(name === 'ingress' ? { contentBasedDeduplication: true } : {}),
      visibilityTimeout: Duration.seconds(
        visibilityTimeoutSeconds(options.timeoutOf(name).toSeconds()),
      ),
      retentionPeriod: Duration.seconds(MESSAGE_RETENTION_SECONDS),
      deadLetterQueue: { queue: dlq, maxReceiveCount: options.maxReceiveCount },
    })
    return { main, dlq }
  }
  return {
    byFunction: Object.fromEntries(
      QUEUE_FUNCTION_NAMES.map((name) => [name, functionQueue(name)]),
    ) as Record<QueueFunction, FunctionQueue>,
    schedulerDeadLetterQueue: deadLetterQueue('SchedulerDeadLetterQueue', false),
    routerFailureQueue: deadLetterQueue('RouterFailureQueue', false),
  }
}
