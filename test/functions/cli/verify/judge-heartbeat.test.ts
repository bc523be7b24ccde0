import { describe, expect, it } from 'vitest'
import { judgeHeartbeat } from '../../../../functions/cli/verify/judge-heartbeat.ts'

describe('the heartbeat check: a quiet stream stays open past 60 s', () => {
  it('passes a stream that stayed open the whole window with heartbeats in it', () => {
    const result = judgeHeartbeat({
      quietMs: 75_000,
      openedAt: 1_000,
      heartbeats: [16_000, 31_000, 46_000, 61_000, 76_000],
    })
    expect(result.status).toBe('PASS')
    expect(result.figures).toEqual({
      quietMs: 75_000,
      heldMs: 75_000,
      heartbeats: 5,
      longestSilenceMs: 15_000,
    })
  })

  it('fails a stream that ended before the window passed (a proxy idled it out)', () => {
    const result = judgeHeartbeat({
      quietMs: 75_000,
      openedAt: 0,
      endedAt: 60_000,
      heartbeats: [15_000, 30_000, 45_000],
    })
    expect(result.status).toBe('FAIL')
    expect(result.detail).toBe(
      'the quiet stream ended after 60.0 s of 75.0 s, with 3 heartbeat(s) before',
    )
  })

  it('fails a stream that stayed open but sent no heartbeat', () => {
    const result = judgeHeartbeat({ quietMs: 75_000, openedAt: 0, heartbeats: [] })
    expect(result.status).toBe('FAIL')
    expect(result.detail).toMatch(/no ': heartbeat' arrived/)
  })

  it('counts a stream that ends only once the window has passed as open', () => {
    expect(
      judgeHeartbeat({
        quietMs: 2_000,
        openedAt: 0,
        endedAt: 2_000,
        heartbeats: [500, 1_000, 1_500],
      }).status,
    ).toBe('PASS')
  })
})

describe('the heartbeat check: a quiet stream the server ends, saying so', () => {
  it("passes a stream that ended with a 'retry:' then ': quiet' (the agent's quiet end)", () => {
    const result = judgeHeartbeat({
      quietMs: 75_000,
      openedAt: 0,
      endedAt: 10_200,
      heartbeats: [],
      quietEnd: { retryMs: 5_000 },
    })
    expect(result.status).toBe('PASS')
    expect(result.detail).toBe(
      "a quiet stream ended cleanly after 10.2 s (': quiet', retry 5.0 s; clients resume with Last-Event-ID), 0 heartbeat(s), at most 10.2 s of silence",
    )
    expect(result.figures).toMatchObject({ heldMs: 10_200, quietEndRetryMs: 5_000 })
  })

  it("fails a quiet end with no 'retry:' before it", () => {
    const result = judgeHeartbeat({
      quietMs: 75_000,
      openedAt: 0,
      endedAt: 10_000,
      heartbeats: [],
      quietEnd: {},
    })
    expect(result.status).toBe('FAIL')
    expect(result.detail).toMatch(/no 'retry:' before it/)
  })
})
