import { afterEach, describe, expect, it, vi } from 'vitest'
import {
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

  it('retries a firing that fails', async () => {
    vi.useFakeTimers({ now: 0 })
    let calls = 0
    const scheduler = inProcessScheduler({
      retryDelayMs: 100,
      fire: async () => {
        calls++
        if (calls === 1) throw new Error('store down')
      },
    })
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    await scheduler.schedule(timer(10))
    await vi.advanceTimersByTimeAsync(10)
    expect(calls).toBe(1)
    await vi.advanceTimersByTimeAsync(100)
    expect(calls).toBe(2)
    expect(scheduler.pending()).toEqual([])
    warn.mockRestore()
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
})
