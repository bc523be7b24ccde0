import { type CheckOutcome, duration, fail, pass, skip } from './check-result.ts'

/**
 * Frames the server wrote further apart than this that still arrive in one
 * burst were held back on the way. Above a second: the live tail polls the
 * table with a backoff of up to 1 s while a session is idle, so one poll may
 * legitimately deliver events appended up to about a second apart.
 * @internal Exported for its test (knip --production).
 */
export const BUFFERED_SPAN_MS = 1_500

/** Frames read less than this apart belong to one burst. */
const BURST_GAP_MS = 20

/** An event frame: the event's own `timestamp` (server clock) and when it arrived (client clock). */
export interface TimedFrame {
  serverMs: number
  arrivedMs: number
}

/**
 * Streamed, or buffered on the way? Only deltas are compared (server
 * timestamps with server timestamps, arrivals with arrivals), so the clocks
 * need not agree. The frames are cut into bursts (arrivals under
 * `BURST_GAP_MS` apart): a burst holding frames the server wrote
 * `BUFFERED_SPAN_MS` or more apart is a FAIL; an answer written within less
 * than that cannot tell streaming from buffering (SKIP).
 *
 * @example
 * judgeStreaming([{ serverMs: 0, arrivedMs: 40 }, { serverMs: 2000, arrivedMs: 2041 }]).status // 'PASS'
 */
export function judgeStreaming(frames: readonly TimedFrame[]): CheckOutcome {
  if (frames.length < 2) {
    return skip(`${frames.length} event frame(s): nothing to time`, { frames: frames.length })
  }
  const first = frames[0] as TimedFrame
  const last = frames.at(-1) as TimedFrame
  const serverSpanMs = last.serverMs - first.serverMs
  const arrivalSpanMs = last.arrivedMs - first.arrivedMs
  const bursts: TimedFrame[][] = [[first]]
  for (let n = 1; n < frames.length; n++) {
    const frame = frames[n] as TimedFrame
    const previous = frames[n - 1] as TimedFrame
    if (frame.arrivedMs - previous.arrivedMs < BURST_GAP_MS) bursts.at(-1)?.push(frame)
    else bursts.push([frame])
  }
  const spanOf = (burst: TimedFrame[]) =>
    (burst.at(-1) as TimedFrame).serverMs - (burst[0] as TimedFrame).serverMs
  const worst = bursts.reduce((a, b) => (spanOf(b) > spanOf(a) ? b : a))
  const figures = {
    frames: frames.length,
    serverSpanMs,
    arrivalSpanMs,
    bursts: bursts.length,
    largestBurstFrames: worst.length,
    largestBurstServerSpanMs: spanOf(worst),
  }
  if (spanOf(worst) >= BUFFERED_SPAN_MS) {
    const arrived = (worst.at(-1) as TimedFrame).arrivedMs - (worst[0] as TimedFrame).arrivedMs
    return fail(
      `buffered: ${worst.length} frames the server wrote over ${duration(spanOf(worst))} arrived within ${duration(arrived)} (something between the function and this client holds the stream back)`,
      figures,
    )
  }
  if (serverSpanMs < BUFFERED_SPAN_MS) {
    return skip(
      `inconclusive: the answer was written within ${duration(serverSpanMs)}, too fast to tell streaming from buffering (a longer answer would, see --message)`,
      figures,
    )
  }
  return pass(
    `${frames.length} frames written over ${duration(serverSpanMs)} arrived over ${duration(arrivalSpanMs)}, in ${bursts.length} bursts; none held frames written more than ${duration(spanOf(worst))} apart`,
    figures,
  )
}
