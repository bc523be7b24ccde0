import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { idleWaits } from '../../../../functions/local/runner/idle-waits.ts'

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

/** How long `pause` took, on the fake clock. */
async function timed(pause: Promise<void>): Promise<number> {
  const started = Date.now()
  let done = false
  void pause.then(() => {
    done = true
  })
  while (!done) await vi.advanceTimersByTimeAsync(10)
  return Date.now() - started
}

describe("the local runner's idle pauses", () => {
  it('"idles quietly": each empty poll waits twice as long as the last, up to the longest pause', async () => {
    const idle = idleWaits({ minMs: 50, maxMs: 1000 })
    const pauses: number[] = []
    for (let n = 0; n < 7; n++) pauses.push(await timed(idle.pause('ingress')))
    expect(pauses).toEqual([50, 100, 200, 400, 800, 1000, 1000])
  })

  it('wake() cuts every pause short and starts each poller again from the shortest', async () => {
    const idle = idleWaits({ minMs: 50, maxMs: 1000 })
    for (let n = 0; n < 6; n++) await timed(idle.pause('stream'))
    let over = false
    void idle.pause('stream').then(() => {
      over = true
    })
    await vi.advanceTimersByTimeAsync(100)
    expect(over).toBe(false) // a 1000 ms pause
    idle.wake()
    await vi.advanceTimersByTimeAsync(0)
    expect(over).toBe(true)
    expect(await timed(idle.pause('stream'))).toBe(50)
  })

  it('does not back off while work is running (an invocation may append at any moment)', async () => {
    let running = true
    const idle = idleWaits({ minMs: 50, maxMs: 1000, working: () => running })
    const pauses: number[] = []
    for (let n = 0; n < 4; n++) pauses.push(await timed(idle.pause('generation')))
    expect(pauses).toEqual([50, 50, 50, 50])
    running = false
    expect(await timed(idle.pause('generation'))).toBe(100)
  })
})
