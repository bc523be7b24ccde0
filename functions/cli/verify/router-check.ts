import { sleep } from '../../../shared/timing/sleep.ts'
import type { CheckOutcome } from './check-result.ts'
import { judgeRouter } from './judge-router.ts'
import { jsonEquals, type LogSearch } from './log-search.ts'
import { errorText } from './verify-target.ts'

/**
 * How long after the last check the router's log is read: its event
 * source waits up to 3 s to gather a batch, the invocation runs, and
 * CloudWatch Logs shows its REPORT within seconds.
 */
const ROUTER_SETTLE_MS = 20_000

export interface RouterCheckOptions {
  /** Searches the router function's log group. */
  searchLogs: LogSearch
  /** When verify started (epoch milliseconds): the window's start. */
  since: number
  /** The turns answered in the window. */
  turns: number
  settleMs?: number
  /** Epoch milliseconds (default `Date.now`). */
  now?: () => number
}

/**
 * The router check: counts the router function's invocations over verify's
 * run, by the REPORT record Lambda writes for every invocation (JSON log
 * format: `type` `platform.report`), and divides by the turns answered.
 * The count is Lambda's `Invocations` metric for the function; it is read
 * from the log group, as the closed check reads the stream function's,
 * because verify has a CloudWatch Logs client and needs no other grant
 * than `logs:FilterLogEvents`, and a REPORT shows within seconds where the
 * metric's minute comes minutes later.
 */
export async function runRouterCheck(options: RouterCheckOptions): Promise<CheckOutcome> {
  const now = options.now ?? Date.now
  await sleep(options.settleMs ?? ROUTER_SETTLE_MS)
  try {
    const reports = await options.searchLogs(jsonEquals('type', 'platform.report'), options.since)
    const invocations = reports.filter((record) => record.type === 'platform.report').length
    return judgeRouter({ invocations, turns: options.turns, windowMs: now() - options.since })
  } catch (error) {
    return judgeRouter({ error: errorText(error) })
  }
}
