import type { VerifyConfig } from '../../../shared/aws/verify-output.ts'
import { type CheckOutcome, pass, skip, warn } from './check-result.ts'

/** Lambda keeps this much of an account's concurrency unreserved (infra/reserved-concurrency.ts). */
const UNRESERVED_MINIMUM = 100

/**
 * The account's Lambda concurrency as the last deploy found it (the stream
 * reservation's custom resource reads it on every deploy). A quota of 100
 * or less leaves nothing to reserve: each open GET stream then holds one of
 * the few units the lanes need, so verify warns and says what to do.
 */
export function judgeConcurrency(concurrency: VerifyConfig['concurrency']): CheckOutcome {
  if (!concurrency) {
    return skip(
      "the stack's verify output has no concurrency figures (deployed before them): redeploy to get them",
    )
  }
  const { lanes, uncappedQueues = 0, streamsRequested, streamsReserved, accountLimit } = concurrency
  if (streamsRequested === undefined || accountLimit === undefined) {
    return skip(
      'streamConcurrency is false: nothing is reserved for GET streams, the quota is not read',
    )
  }
  const reserved = streamsReserved ?? 0
  const figures = { accountLimit, streamsReserved: reserved, streamsRequested, lanes }
  const raise =
    'ask for 1,000 (Service Quotas, AWS Lambda, "Concurrent executions"), then redeploy: the reservation is recomputed on every deploy'
  if (accountLimit <= UNRESERVED_MINIMUM) {
    return warn(
      `the account's Lambda concurrency quota was ${accountLimit} at the last deploy: nothing could be reserved for GET streams, which share those ${accountLimit} units with lanes whose event sources may run ${lanes} invocations in all${uncappedQueues > 0 ? ` (and ${uncappedQueues} uncapped queues one per session with work)` : ''}, so a few open tabs throttle every lane; ${raise}`,
      figures,
    )
  }
  if (reserved < streamsRequested) {
    return warn(
      `${reserved} of the ${streamsRequested} asked reserved for GET streams (the account's quota was ${accountLimit} at the last deploy); ${raise}`,
      figures,
    )
  }
  return pass(
    `${reserved} of the account's ${accountLimit} concurrent executions reserved for GET streams at the last deploy`,
    figures,
  )
}
