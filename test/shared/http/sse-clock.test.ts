import { describe, expect, it } from 'vitest'
import { openSseSubscription } from '../../../shared/client/sse-subscription.ts'
import { sseResponseBody } from '../../../shared/http/sse.ts'
import type { Timers } from '../../../shared/timing/timers.ts'

/** Timers that only run when told to: what was set, by delay. */
function manualTimers() {
  const pending = new Map<object, { ms: number; run: () => void }>()
  const set = (run: () => void, ms: number) => {
    const handle = {}
    pending.set(handle, { ms, run })
    return handle
  }
  const timers: Timers = {
    setTimeout: set,
    setInterval: set,
    clearTimeout: (handle) => pending.delete(handle as object),
    clearInterval: (handle) => pending.delete(handle as object),
  }
  const fire = (ms: number) => {
    for (const [handle, timer] of pending) {
      if (timer.ms !== ms) continue
      pending.delete(handle)
      timer.run()
    }
  }
  return { timers, pending, fire }
}

const never = (signal: AbortSignal): AsyncIterable<never> => ({
  async *[Symbol.asyncIterator]() {
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))
  },
})

describe('the SSE clock seam', () => {
  it("the stream's heartbeat and quiet end run on the timers it is given", async () => {
    const { timers, pending, fire } = manualTimers()
    const body = sseResponseBody(
      { read: async () => [], tail: (_after, signal) => never(signal) },
      0,
      {
        timers,
        heartbeatMs: 15_000,
        quietMs: 10_000,
      },
    )
    const reader = body.getReader()
    const decoder = new TextDecoder()
    let text = ''
    const reading = (async () => {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) return
        text += decoder.decode(value, { stream: true })
      }
    })()
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect([...pending.values()].map((timer) => timer.ms).sort()).toEqual([10_000, 15_000])
    fire(10_000)
    await reading
    expect(text).toContain(': quiet')
    expect(pending.size).toBe(0)
  })

  it('once an event it sent settled the session, the quiet end waits settledQuietMs; an event the client had does not', async () => {
    const stored = (index: number) => ({
      id: `e${index}`,
      type: 'note.added',
      payload: {},
      sessionId: 's1',
      life: 'L',
      index,
      timestamp: 0,
    })
    const quietTimers = async (after: number | undefined) => {
      const { timers, pending } = manualTimers()
      const seen: number[] = []
      const body = sseResponseBody(
        {
          read: async (cursor) => [stored(1), stored(2)].filter((event) => event.index > cursor),
          tail: (_after, signal) => never(signal),
        },
        after === undefined ? 0 : after - 1,
        {
          timers,
          heartbeatMs: 15_000,
          quietMs: 10_000,
          settledQuietMs: 1_000,
          ...(after === undefined ? {} : { after }),
          settled: (event) => {
            seen.push(event.index)
            return event.index === 2
          },
        },
      )
      const reader = body.getReader()
      void (async () => {
        for (;;) if ((await reader.read()).done) return
      })()
      await new Promise((resolve) => setTimeout(resolve, 10))
      const delays = [...pending.values()].map((timer) => timer.ms).sort((a, b) => a - b)
      await reader.cancel()
      return { delays, seen }
    }
    // Sent event 2, which settled the session: 1 s.
    expect(await quietTimers(undefined)).toEqual({ delays: [1_000, 15_000], seen: [1, 2] })
    // Resumed after event 2: it is only named (`: after`), so the full 10 s.
    expect(await quietTimers(2)).toEqual({ delays: [10_000, 15_000], seen: [2] })
  })

  it("the client's subscription waits out its backoff on the clock it is given", async () => {
    const { timers, pending } = manualTimers()
    let fetched = 0
    const subscription = openSseSubscription({
      endpoint: {
        api: 'https://example.test/api',
        fetch: (async () => {
          fetched++
          throw new TypeError('network error')
        }) as typeof fetch,
      },
      sessionId: 's1',
      lastIndex: () => 0,
      onEvents() {},
      onStatus() {},
      clock: { timers, now: () => 0, random: () => 0.5 },
    })
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(fetched).toBe(1)
    expect(pending.size).toBe(1)
    subscription.close()
  })
})
