import { AppendContendedError } from '../../log/errors.ts'

// The DynamoDB error vocabulary, as the DynamoDB store's caller meets it:
// what reaches the port after the SDK's own retries and the adapter's
// handling. On the memory store the simulator throws these at the port,
// so the runtime sees what it would see on AWS.

/** An AWS SDK service exception, as the SDK builds it (matched by `name`). */
export function awsServiceError(name: string, message: string): Error {
  const error = new Error(message)
  error.name = name
  Object.assign(error, {
    $fault: 'client',
    $metadata: { httpStatusCode: 400, attempts: 3, totalRetryDelay: 180 },
  })
  return error
}

/** The throttling exceptions DynamoDB answers when a table or account is over its limits. */
export const THROTTLING_ERRORS = [
  [
    'ProvisionedThroughputExceededException',
    'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
  ],
  ['ThrottlingException', 'Rate of requests exceeds the allowed throughput.'],
  [
    'RequestLimitExceeded',
    'Throughput exceeds the current throughput limit for your account. Please contact AWS Support at https://aws.amazon.com/support request a limit increase',
  ],
] as const

export function throttlingError(which: (typeof THROTTLING_ERRORS)[number]): Error {
  return awsServiceError(which[0], which[1])
}

/**
 * A request the SDK sent whose answer never came (`@smithy/node-http-handler`'s
 * socket timeout, after its retries): the write may have committed.
 */
export function requestTimeout(): Error {
  const error = new Error('Connection timed out after 3000 ms')
  error.name = 'TimeoutError'
  return error
}

/**
 * What an append meets when every retry of its TransactWriteItems was
 * cancelled with `TransactionConflict` (concurrent transactions on its
 * items) for longer than the adapter's `appendRetryMs`.
 */
export function contendedAppend(sessionId: string): Error {
  return new AppendContendedError(sessionId, 10_000)
}
