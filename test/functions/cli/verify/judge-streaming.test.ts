import { describe, expect, it } from 'vitest'
import {
  BUFFERED_SPAN_MS,
  judgeStreaming,
  type TimedFrame,
} from '../../../../functions/cli/verify/judge-streaming.ts'

/** Frames the server wrote every `everyMs` from `serverStart`, each arriving as `arrive` says. */
const frames = (
  count: number,
  everyMs: number,
  arrive: (serverOffset: number) => number,
  serverStart = 1_767_000_000_000,
): TimedFrame[] =>
  Array.from({ length: count }, (_, n) => ({
    serverMs: serverStart + n * everyMs,
    arrivedMs: arrive(n * everyMs),
  }))

describe('the streaming check: frames arrive as written, not buffered', () => {
  it('passes frames that arrive as far apart as the server wrote them', () => {
    const streamed = frames(40, 50, (offset) => 5_000 + offset + 30 + (offset % 7))
    const result = judgeStreaming(streamed)
    expect(result.status).toBe('PASS')
    expect(result.figures).toMatchObject({ frames: 40, serverSpanMs: 1950, bursts: 40 })
  })

  it('fails frames the server wrote over seconds that all arrive in one burst', () => {
    // A proxy or the runtime held the response back and flushed it at the end.
    const buffered = frames(41, 50, (offset) => 9_000 + offset / 1000)
    const result = judgeStreaming(buffered)
    expect(result.status).toBe('FAIL')
    expect(result.detail).toMatch(
      /^buffered: 41 frames the server wrote over 2\.0 s arrived within 2 ms/,
    )
    expect(result.figures).toMatchObject({ bursts: 1, largestBurstServerSpanMs: 2000 })
  })

  it('fails a stream flushed in chunks that each hold seconds of frames', () => {
    // Flushed every 2 s: a few bursts, each spanning 2 s of server time.
    const chunked = frames(120, 50, (offset) => 1_000 + Math.floor(offset / 2_000) * 2_000 + 2_000)
    expect(judgeStreaming(chunked).status).toBe('FAIL')
  })

  it("passes frames one tail poll delivered together: the tail's idle backoff is up to a second", () => {
    // Frames written during one 1 s poll sleep arrive together, the rest as written.
    const polled = [
      ...frames(10, 100, () => 3_000), // written over 0.9 s, read at once
      ...frames(30, 50, (offset) => 3_020 + offset, 1_767_000_001_000),
    ]
    expect(judgeStreaming(polled).status).toBe('PASS')
  })

  it('compares deltas only, so the two clocks need not agree', () => {
    const skewed = frames(40, 50, (offset) => offset + 30, 1_767_000_000_000 + 3 * 3_600_000)
    const buffered = frames(40, 50, () => 0, 1_767_000_000_000 - 3 * 3_600_000)
    expect(judgeStreaming(skewed).status).toBe('PASS')
    expect(judgeStreaming(buffered).status).toBe('FAIL')
  })

  it('skips (inconclusive) an answer written too fast to tell, whatever the arrivals', () => {
    const quick = frames(10, 50, () => 100)
    const result = judgeStreaming(quick)
    expect(result.status).toBe('SKIP')
    expect(result.detail).toMatch(/^inconclusive: the answer was written within 450 ms/)
    expect(judgeStreaming(frames(1, 50, () => 0)).status).toBe('SKIP')
    expect(judgeStreaming([]).status).toBe('SKIP')
    // Just long enough to judge.
    expect(judgeStreaming(frames(2, BUFFERED_SPAN_MS, (offset) => offset)).status).toBe('PASS')
  })
})
