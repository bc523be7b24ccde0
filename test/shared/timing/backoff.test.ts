import { describe, expect, it } from 'vitest'
import { backoff } from '../../../shared/timing/backoff.ts'
import { sleep } from '../../../shared/timing/sleep.ts'

describe('backoff(attempt, policy): the one backoff', () => {
  const policy = { baseDelayMs: 100, maxDelayMs: 1_000 }

  it('doubles from the initial wait per attempt, up to the cap, and never overflows', () => {
    const waits = [0, 1, 2, 3, 4, 5000].map((attempt) =>
      backoff(attempt, { ...policy, jitter: 'none' }),
    )
    expect(waits).toEqual([100, 200, 400, 800, 1_000, 1_000])
    expect(backoff(-1, { ...policy, jitter: 'none' })).toBe(100)
  })

  it('with equal jitter waits half fixed and half random; with full jitter, any share', () => {
    expect(backoff(2, { ...policy, jitter: 'equal' }, () => 0)).toBe(200)
    expect(backoff(2, { ...policy, jitter: 'equal' }, () => 1)).toBe(400)
    expect(backoff(2, { ...policy, jitter: 'full' }, () => 0)).toBe(0)
    expect(backoff(2, { ...policy, jitter: 'full' }, () => 0.5)).toBe(200)
  })
})

describe('sleep(ms, signal): the one sleep', () => {
  it('resolves after its time, or at once when its signal aborts or already has', async () => {
    const started = Date.now()
    await sleep(20)
    expect(Date.now() - started).toBeGreaterThanOrEqual(15)
    const controller = new AbortController()
    const waiting = sleep(60_000, controller.signal)
    controller.abort()
    await waiting
    await sleep(60_000, AbortSignal.abort())
  })
})
