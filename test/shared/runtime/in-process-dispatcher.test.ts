import { describe, expect, it } from 'vitest'
import { inProcessDispatcher } from '../../../shared/runtime/in-process-dispatcher.ts'
import { DONE, type WakeUp } from '../../../shared/runtime/wake-up.ts'

const wake = (sessionId: string, lane = 'admission', key?: string): WakeUp => ({
  sessionId,
  lane,
  ...(key ? { key } : {}),
})
const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms))
const quiet = { onRetry: () => {} }

describe('the in-process dispatcher', () => {
  it('runs one wake-up group at a time, and once more when woken while running', async () => {
    let running = 0
    let maxRunning = 0
    let runs = 0
    let release: () => void = () => {}
    const dispatcher = inProcessDispatcher({
      ...quiet,
      run: async () => {
        runs++
        running++
        maxRunning = Math.max(maxRunning, running)
        await new Promise<void>((resolve) => {
          release = resolve
        })
        running--
        return DONE
      },
    })
    await dispatcher.wake([wake('s')])
    await dispatcher.wake([wake('s'), wake('s'), wake('s')])
    await tick()
    release()
    await tick()
    release()
    await dispatcher.idle()
    expect(runs).toBe(2)
    expect(maxRunning).toBe(1)
  })

  it('runs different groups concurrently', async () => {
    const started: string[] = []
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const dispatcher = inProcessDispatcher({
      ...quiet,
      run: async (w) => {
        started.push(`${w.sessionId}/${w.lane}/${w.key ?? ''}`)
        await gate
        return DONE
      },
    })
    await dispatcher.wake([
      wake('a'),
      wake('b'),
      wake('a', 'tools', 'call-1'),
      wake('a', 'tools', 'call-2'),
    ])
    await tick()
    expect(started.sort()).toEqual([
      'a/admission/',
      'a/tools/call-1',
      'a/tools/call-2',
      'b/admission/',
    ])
    release()
    await dispatcher.idle()
  })

  it('retries a failing run with growing delays and reports the attempt number', async () => {
    const attempts: number[] = []
    const times: number[] = []
    const dispatcher = inProcessDispatcher({
      ...quiet,
      retry: { baseDelayMs: 20, maxAttempts: 5 },
      run: async (_w, attempt) => {
        attempts.push(attempt)
        times.push(Date.now())
        if (attempt < 3) throw new Error('transient')
        return DONE
      },
    })
    await dispatcher.wake([wake('s')])
    await dispatcher.idle()
    expect(attempts).toEqual([1, 2, 3])
    const gaps = [(times[1] ?? 0) - (times[0] ?? 0), (times[2] ?? 0) - (times[1] ?? 0)]
    expect(gaps[0]).toBeGreaterThanOrEqual(9)
    expect(gaps[1]).toBeGreaterThanOrEqual(19)
  })

  it('dead-letters a group after maxAttempts failures in a row, and stops retrying it', async () => {
    const deadLetters: [WakeUp, string, number][] = []
    let runs = 0
    const dispatcher = inProcessDispatcher({
      ...quiet,
      retry: { baseDelayMs: 1, maxAttempts: 3 },
      run: async () => {
        runs++
        throw new Error('poison')
      },
      onDeadLetter: (w, error, attempts) => {
        deadLetters.push([w, (error as Error).message, attempts])
      },
    })
    await dispatcher.wake([wake('s')])
    await dispatcher.idle()
    await tick(20)
    expect(runs).toBe(3)
    expect(deadLetters).toEqual([[wake('s'), 'poison', 3]])
  })

  it("runs held work again when its holder's claim ends, without counting a failure", async () => {
    const attempts: number[] = []
    const deadLetters: number[] = []
    let runs = 0
    const dispatcher = inProcessDispatcher({
      ...quiet,
      retry: { baseDelayMs: 1, maxAttempts: 2 },
      run: async (_w, attempt) => {
        attempts.push(attempt)
        runs++
        // Held three times: more than maxAttempts, yet no dead letter.
        return runs <= 3 ? { kind: 'held', retryAt: Date.now() + 10 } : DONE
      },
      onDeadLetter: (_w, _error, n) => {
        deadLetters.push(n)
      },
    })
    await dispatcher.wake([wake('s')])
    await dispatcher.idle()
    expect(runs).toBe(4)
    expect(attempts).toEqual([1, 1, 1, 1])
    expect(deadLetters).toEqual([])
  })

  it('counts failures in a row through held runs: work that fails between holds is still dead-lettered', async () => {
    const deadLetters: number[] = []
    const attempts: number[] = []
    let runs = 0
    const dispatcher = inProcessDispatcher({
      ...quiet,
      retry: { baseDelayMs: 1, maxAttempts: 3 },
      run: async (_w, attempt) => {
        attempts.push(attempt)
        runs++
        if (runs % 2 === 0) return { kind: 'held', retryAt: Date.now() + 2 }
        throw new Error('poison')
      },
      onDeadLetter: (_w, _error, n) => {
        deadLetters.push(n)
      },
    })
    await dispatcher.wake([wake('s')])
    await dispatcher.idle()
    await tick(20)
    // fail, held, fail, held, fail: the third failure gives up.
    expect(attempts).toEqual([1, 2, 2, 3, 3])
    expect(deadLetters).toEqual([3])
  })

  it('dead-letters a failure that carries a numeric retryAt: only an outcome means held', async () => {
    const deadLetters: string[] = []
    let runs = 0
    const dispatcher = inProcessDispatcher({
      ...quiet,
      retry: { baseDelayMs: 1, maxAttempts: 2 },
      run: async () => {
        runs++
        // A user's error that happens to say when to try again.
        throw Object.assign(new Error('rate limited'), { retryAt: Date.now() + 5 })
      },
      onDeadLetter: (_w, error) => {
        deadLetters.push((error as Error).message)
      },
    })
    await dispatcher.wake([wake('s')])
    await dispatcher.idle()
    expect(runs).toBe(2)
    expect(deadLetters).toEqual(['rate limited'])
  })
})
