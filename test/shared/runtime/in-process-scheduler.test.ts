import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  DEFAULT_TIMER_RETRY,
  inProcessScheduler,
  TimerConflictError,
} from '../../../shared/runtime/in-process-scheduler.ts'
import type { Timer } from '../../../shared/runtime/scheduler.ts'

const timer = (at: number, name = 'reminder:1'): Timer => ({
  sessionId: 's',
  name,
  at,
  events: [{ id: `${name}-msg`, type: 'note.added', payload: {} }],
})

afterEach(() => {
  vi.useRealTimers()
})

describe('the in-process scheduler', () => {
  it('fires a timer at its time, after the code that set it has returned', async () => {
    vi.useFakeTimers({ now: 0 })
    const fired: Timer[] = []
    const scheduler = inProcessScheduler({ fire: async (t) => void fired.push(t) })
    await (async () => scheduler.schedule(timer(5_000)))()
    await vi.advanceTimersByTimeAsync(4_999)
    expect(fired).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(fired.map((t) => t.name)).toEqual(['reminder:1'])
    expect(scheduler.pending()).toEqual([])
  })

  it('makes one timer of the same name and time, and refuses the same name at another time', async () => {
    vi.useFakeTimers({ now: 0 })
    const fired: Timer[] = []
    const scheduler = inProcessScheduler({ fire: async (t) => void fired.push(t) })
    await scheduler.schedule(timer(1_000))
    await scheduler.schedule(timer(1_000))
    await expect(scheduler.schedule(timer(2_000))).rejects.toBeInstanceOf(TimerConflictError)
    await vi.advanceTimersByTimeAsync(3_000)
    expect(fired).toHaveLength(1)
  })

  it('retries a firing that fails, with backoff', async () => {
    vi.useFakeTimers({ now: 0 })
    let calls = 0
    const retries: string[] = []
    const scheduler = inProcessScheduler({
      retry: { baseDelayMs: 100 },
      logger: { warn: (line: string) => void retries.push(line), error: () => {} },
      fire: async () => {
        calls++
        if (calls <= 2) throw new Error('store down')
      },
    })
    await scheduler.schedule(timer(10))
    await vi.advanceTimersByTimeAsync(10)
    expect(calls).toBe(1)
    // Equal jitter: the first retry within 50 to 100 ms, the second 100 to 200 ms later.
    await vi.advanceTimersByTimeAsync(100)
    expect(calls).toBe(2)
    await vi.advanceTimersByTimeAsync(200)
    expect(calls).toBe(3)
    expect(retries).toEqual([
      expect.stringMatching(
        /timer "reminder:1" of session s failed to fire \(attempt 1\).*store down/,
      ),
      expect.stringMatching(/\(attempt 2\)/),
    ])
    expect(scheduler.pending()).toEqual([])
  })

  it('gives a firing that keeps failing up after its attempts, as the timer queue dead-letters it, and says so', async () => {
    vi.useFakeTimers({ now: 0 })
    let calls = 0
    const gaveUp: string[] = []
    const scheduler = inProcessScheduler({
      logger: { warn: () => {}, error: (line: string) => void gaveUp.push(line) },
      fire: async () => {
        calls++
        throw new Error('always down')
      },
    })
    await scheduler.schedule(timer(0))
    // The defaults: five tries, the waits doubling from 2 s (at most 2 + 4 + 8 + 16 s).
    await vi.advanceTimersByTimeAsync(31_000)
    expect(calls).toBe(DEFAULT_TIMER_RETRY.maxAttempts)
    expect(gaveUp).toEqual([
      'a2: timer "reminder:1" of session s gave up after 5 attempts; its events were not appended: always down',
    ])
    expect(scheduler.pending()).toEqual([])
    await vi.advanceTimersByTimeAsync(600_000)
    expect(calls).toBe(5)
  })

  it('waits past the 24.8-day setTimeout limit', async () => {
    vi.useFakeTimers({ now: 0 })
    const fired: Timer[] = []
    const scheduler = inProcessScheduler({ fire: async (t) => void fired.push(t) })
    const thirtyDays = 30 * 24 * 60 * 60 * 1000
    await scheduler.schedule(timer(thirtyDays))
    await vi.advanceTimersByTimeAsync(2 ** 31)
    expect(fired).toEqual([])
    await vi.advanceTimersByTimeAsync(thirtyDays - 2 ** 31)
    expect(fired).toHaveLength(1)
  })

  it("cancels a session's pending timers (they never fire), counts them, and leaves other sessions' alone", async () => {
    vi.useFakeTimers({ now: 0 })
    const fired: Timer[] = []
    const scheduler = inProcessScheduler({ fire: async (t) => void fired.push(t) })
    await scheduler.schedule(timer(1_000, 'a'))
    await scheduler.schedule(timer(2_000, 'b'))
    await scheduler.schedule({ ...timer(1_000, 'other'), sessionId: 'kept' })
    expect(await scheduler.cancel('s')).toBe(2)
    expect(await scheduler.cancel('s')).toBe(0)
    await vi.advanceTimersByTimeAsync(3_000)
    expect(fired.map((t) => `${t.sessionId}/${t.name}`)).toEqual(['kept/other'])
    // The name is free again: a new timer of it is a new timer, not a conflict.
    await scheduler.schedule(timer(5_000, 'a'))
    await vi.advanceTimersByTimeAsync(2_000)
    expect(fired.map((t) => t.name)).toEqual(['other', 'a'])
  })

  it('keeps a timer set again under the name of a cancelled one that was firing at the time', async () => {
    vi.useFakeTimers({ now: 0 })
    const fired: number[] = []
    const scheduler = inProcessScheduler({
      // Each firing takes 500 ms (an append), then counts.
      fire: (t) => new Promise((resolve) => setTimeout(() => resolve(void fired.push(t.at)), 500)),
    })
    await scheduler.schedule(timer(0, 'a'))
    await vi.advanceTimersByTimeAsync(1) // firing
    expect(await scheduler.cancel('s')).toBe(1)
    await scheduler.schedule(timer(2_000, 'a'))
    await vi.advanceTimersByTimeAsync(600) // the old firing ends
    expect(scheduler.pending().map((t) => t.at)).toEqual([2_000])
    await vi.advanceTimersByTimeAsync(2_000)
    expect(fired).toEqual([0, 2_000])
  })
})
