import { sleep } from '../../../shared/timing/sleep.ts'
import { HEAD_TIMEOUT_MS } from './answer-check.ts'
import { type CheckOutcome, duration, fail } from './check-result.ts'
import { judgeClosed, PROMPT_END_MS, reportOf, streamInvocation } from './judge-closed.ts'
import { jsonEquals, type LogSearch } from './log-search.ts'
import { headOf, monotonicNow, openSse } from './sse-connection.ts'
import { errorText, sessionUrl, type VerifyTarget } from './verify-target.ts'

/** CloudWatch Logs shows a line within seconds, rarely later: the wait past `PROMPT_END_MS`. */
const LOG_DELIVERY_MS = 45_000

export interface ClosedCheckOptions {
  sessionId: string
  /** Searches the stream function's log group. */
  searchLogs: LogSearch
  /** How long after closing the logs are searched (default `PROMPT_END_MS + LOG_DELIVERY_MS`). */
  waitMs?: number
  pollMs?: number
}

/**
 * The closed check: opens a GET stream on its own session, waits for the
 * `: head N`, closes it as a browser tab would, then reads the stream
 * function's logs for that invocation (its `a2: stream opened` line, by
 * session) and its REPORT, until the REPORT shows or the wait is over.
 */
export async function runClosedCheck(
  target: VerifyTarget,
  options: ClosedCheckOptions,
): Promise<CheckOutcome> {
  const now = target.now ?? monotonicNow
  const { sessionId, searchLogs } = options
  const waitMs = options.waitMs ?? PROMPT_END_MS + LOG_DELIVERY_MS
  const pollMs = options.pollMs ?? 5_000
  // Log times are AWS's: search from well before, whatever this clock says.
  const since = Date.now() - 10 * 60_000
  let connection: Awaited<ReturnType<typeof openSse>>
  try {
    connection = await openSse(sessionUrl(target.url, sessionId), target)
  } catch (error) {
    return fail(`could not open the stream: ${errorText(error)}`)
  }
  const head = await connection.next((frame) => headOf(frame) !== undefined, HEAD_TIMEOUT_MS)
  connection.close()
  const closedAt = now()
  if (typeof head === 'string') {
    return fail(
      `the stream sent no ': head N' comment (${head} after ${duration(HEAD_TIMEOUT_MS)})`,
    )
  }
  const heldMs = closedAt - head.at
  let invocation: ReturnType<typeof streamInvocation>
  try {
    for (;;) {
      const lines = await searchLogs(jsonEquals('sessionId', sessionId), since)
      invocation = streamInvocation(lines, sessionId)
      if (invocation) {
        const reports = await searchLogs(
          jsonEquals('record.requestId', invocation.requestId),
          since,
        )
        const report = reportOf(reports, invocation.requestId)
        if (report) {
          // The handler's end line comes before the REPORT: read it if it was late.
          if (!invocation.ended) {
            const again = await searchLogs(jsonEquals('sessionId', sessionId), since)
            invocation = streamInvocation(again, sessionId) ?? invocation
          }
          return judgeClosed({ heldMs, waitedMs: now() - closedAt, invocation, report })
        }
      }
      if (now() - closedAt >= waitMs) break
      await sleep(Math.min(pollMs, waitMs))
    }
  } catch (error) {
    return judgeClosed({ heldMs, waitedMs: now() - closedAt, error: errorText(error) })
  }
  return judgeClosed({
    heldMs,
    waitedMs: now() - closedAt,
    ...(invocation ? { invocation } : {}),
  })
}
