import type { SQSRecord } from 'aws-lambda'

/** One queue function's invocation on the local runner: when, and the sessions its records wake. */
interface QueueHop {
  name: string
  at: number
  sessions: string[]
}

/**
 * Records the queue functions' invocations (`startLocalPipeline({ onInvoke })`),
 * and answers which of them, since a mark and up to a time, woke a session:
 * the hops a turn crossed.
 */
export function queueHops() {
  const hops: QueueHop[] = []
  return {
    onInvoke(name: string, records: readonly SQSRecord[]): void {
      hops.push({
        name,
        at: performance.now(),
        sessions: records.map(
          (record) => (JSON.parse(record.body) as { sessionId: string }).sessionId,
        ),
      })
    },
    /** Where the next hop will be recorded. */
    mark: (): number => hops.length,
    /** The functions that woke `sessionId` since `mark`, in order, up to `until` (performance.now()). */
    since(mark: number, sessionId: string, until = Number.POSITIVE_INFINITY): string[] {
      return hops
        .slice(mark)
        .filter((hop) => hop.at <= until && hop.sessions.includes(sessionId))
        .map((hop) => hop.name)
    },
  }
}
