import { type CheckOutcome, fail } from './check-result.ts'
import { judgeHeartbeat } from './judge-heartbeat.ts'
import { openSse } from './sse-connection.ts'
import { errorText, sessionUrl, type VerifyTarget } from './verify-target.ts'

/**
 * The heartbeat check: holds a GET open on a session nothing happens in for
 * `quietMs` and notes every `: heartbeat` comment, whether the stream ended
 * on its own, and whether it said so (`retry:`, then `: quiet`).
 */
export async function runHeartbeatCheck(
  target: VerifyTarget,
  { sessionId, quietMs }: { sessionId: string; quietMs: number },
): Promise<CheckOutcome> {
  let connection: Awaited<ReturnType<typeof openSse>>
  try {
    connection = await openSse(sessionUrl(target.url, sessionId), target)
  } catch (error) {
    return fail(`could not open a quiet stream: ${errorText(error)}`)
  }
  try {
    // Nothing matches: this waits for the window to pass or the stream to end.
    await connection.next(() => false, quietMs)
    const endedAt = connection.endedAt()
    const [retry, last] = connection.frames.slice(-2)
    const saidQuiet = last?.kind === 'comment' && last.comment === 'quiet'
    return judgeHeartbeat({
      quietMs,
      openedAt: connection.requestedAt,
      heartbeats: connection.frames.flatMap((frame) =>
        frame.kind === 'comment' && frame.comment === 'heartbeat' ? [frame.at] : [],
      ),
      ...(endedAt === undefined ? {} : { endedAt }),
      ...(endedAt !== undefined && saidQuiet
        ? { quietEnd: retry?.kind === 'retry' ? { retryMs: retry.ms } : {} }
        : {}),
    })
  } finally {
    connection.close()
  }
}
