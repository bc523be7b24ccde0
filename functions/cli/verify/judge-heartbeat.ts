import { type CheckOutcome, duration, fail, pass } from './check-result.ts'

export interface QuietStreamObservation {
  /** How long the quiet stream was to be held. */
  quietMs: number
  /** When the GET was sent (client clock). */
  openedAt: number
  /** When the stream ended on its own, if it did before the window passed. */
  endedAt?: number
  /** When each `: heartbeat` comment arrived. */
  heartbeats: readonly number[]
  /**
   * The stream ended saying the session was quiet (a `: quiet` comment), and
   * the `retry:` just before it, if there was one.
   */
  quietEnd?: { retryMs?: number }
}

/**
 * A quiet stream kept alive, or ended cleanly: it stayed open for the whole
 * window and heartbeats arrived in it, or the server ended it because the
 * session was quiet and said so (`retry:` then `: quiet`, as an agent does
 * after `stream.quietMs`, 10 s by default), before any silence a proxy would
 * cut. Ending early without saying so means something on the way (a proxy's
 * idle timeout, the function's deadline) cut it; no heartbeat in a stream
 * that stays open means nothing keeps proxies from idling it out.
 *
 * @example
 * judgeHeartbeat({ quietMs: 75_000, openedAt: 0, heartbeats: [15_000, 30_000] }).status // 'PASS'
 */
export function judgeHeartbeat(observation: QuietStreamObservation): CheckOutcome {
  const { quietMs, openedAt, endedAt, heartbeats } = observation
  const marks = [openedAt, ...heartbeats, endedAt ?? openedAt + quietMs]
  const longestSilenceMs = Math.max(...marks.slice(1).map((mark, n) => mark - (marks[n] as number)))
  const figures = {
    quietMs,
    heldMs: (endedAt ?? openedAt + quietMs) - openedAt,
    heartbeats: heartbeats.length,
    longestSilenceMs,
  }
  if (endedAt !== undefined && endedAt - openedAt < quietMs && observation.quietEnd) {
    const { retryMs } = observation.quietEnd
    if (retryMs === undefined) {
      return fail(
        `the quiet stream ended after ${duration(endedAt - openedAt)} with ': quiet' but no 'retry:' before it: a plain EventSource would not know when to come back`,
        figures,
      )
    }
    return pass(
      `a quiet stream ended cleanly after ${duration(endedAt - openedAt)} (': quiet', retry ${duration(retryMs)}; clients resume with Last-Event-ID), ${heartbeats.length} heartbeat(s), at most ${duration(longestSilenceMs)} of silence`,
      { ...figures, quietEndRetryMs: retryMs },
    )
  }
  if (endedAt !== undefined && endedAt - openedAt < quietMs) {
    return fail(
      `the quiet stream ended after ${duration(endedAt - openedAt)} of ${duration(quietMs)}, with ${heartbeats.length} heartbeat(s) before`,
      figures,
    )
  }
  if (heartbeats.length === 0) {
    return fail(
      `the quiet stream stayed open ${duration(quietMs)} but no ': heartbeat' arrived (the server sends one every stream.heartbeatMs, 15 s by default; proxies idle a silent stream out)`,
      figures,
    )
  }
  return pass(
    `a quiet stream stayed open ${duration(quietMs)}: ${heartbeats.length} heartbeat(s), at most ${duration(longestSilenceMs)} of silence`,
    figures,
  )
}
