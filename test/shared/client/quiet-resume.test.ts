import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  type ConnectionStatus,
  DEFAULT_IDLE_CHECK_MS,
  HIDDEN_CHECK_MS,
  openSseSubscription,
  type SseSubscription,
  type SseSubscriptionOptions,
} from '../../../shared/client/sse-subscription.ts'
import type { StoredEvent } from '../../../shared/log/event.ts'

// The subscription against a scripted server, on fake timers: when each
// request is made says what the client does after a quiet end, a drop, a
// head check or a wake-up.

const event = (index: number, id = `e${index}`, life = ''): StoredEvent => ({
  id,
  type: 'note.added',
  payload: {},
  sessionId: 's1',
  life,
  index,
  timestamp: 0,
})

interface Fake {
  /** What the log holds. */
  events: StoredEvent[]
  /** Each request: when (fake ms since start), and what it was. */
  requests: { at: number; kind: 'stream' | 'head'; after?: number }[]
  /** How the next streams end: `quiet` (the server's quiet end) or `drop`. */
  ends: ('quiet' | 'drop')[]
  /** Head checks fail while set. */
  headFails: boolean
  /** Stream requests fail (the network is down) while set. */
  streamFails: boolean
}

function fakeServer(): { fake: Fake; fetch: typeof globalThis.fetch } {
  const fake: Fake = { events: [], requests: [], ends: [], headFails: false, streamFails: false }
  const started = Date.now()
  const fetch = (async (input: string | URL | Request) => {
    const url = new URL(String(input), 'http://a2.test')
    const at = Date.now() - started
    if (url.searchParams.has('head')) {
      fake.requests.push({ at, kind: 'head' })
      if (fake.headFails) throw new TypeError('fetch failed')
      const life = fake.events.at(-1)?.life
      return Response.json({ head: fake.events.length, ...(life ? { life } : {}) })
    }
    const after = Number(url.searchParams.get('after') ?? 0)
    fake.requests.push({ at, kind: 'stream', after })
    if (fake.streamFails) throw new TypeError('fetch failed')
    const end = fake.ends.shift() ?? 'quiet'
    let body = `retry: 1000\n\n: head ${fake.events.length}\n\n`
    const named = fake.events[after - 1]
    if (named) body += `: after ${after} ${JSON.stringify(named.id)}\n\n`
    for (const stored of fake.events.slice(after)) {
      body += `id: ${stored.index}\ndata: ${JSON.stringify(stored)}\n\n`
    }
    if (end === 'quiet') body += 'retry: 5000\n\n: quiet\n\n'
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
  }) as typeof globalThis.fetch
  return { fake, fetch }
}

function subscribe(options: Partial<SseSubscriptionOptions> = {}) {
  const { fake, fetch } = fakeServer()
  let applied: StoredEvent[] = []
  const statuses: ConnectionStatus[] = []
  const heads: (number | undefined)[] = []
  const state = { busy: false }
  const subscription: SseSubscription = openSseSubscription({
    endpoint: { api: '/agent', fetch },
    sessionId: 's1',
    lastIndex: () => applied.length,
    lastId: () => applied.at(-1)?.id,
    // As the client does: the life of what it applied ('' on a legacy log: none).
    lastLife: () => applied.at(-1)?.life || undefined,
    onEvents: (events) => {
      applied = [...applied, ...events]
    },
    onRewind: () => {
      applied = []
    },
    onStatus: (status) => {
      if (statuses.at(-1) !== status) statuses.push(status)
    },
    onHead: (index) => heads.push(index),
    expectsNews: () => state.busy,
    ...options,
  })
  return { fake, subscription, statuses, heads, state, applied: () => applied }
}

const kinds = (fake: Fake) => fake.requests.map((request) => request.kind)

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
  vi.unstubAllGlobals()
})

describe('the subscription after the server ends a stream for quiet', () => {
  it('holds no stream, checks the head every idleCheckMs, and opens the stream when the head moved', async () => {
    const { fake, subscription, statuses } = subscribe()
    fake.events.push(event(1))
    await vi.advanceTimersByTimeAsync(0)
    expect(kinds(fake)).toEqual(['stream'])
    await vi.advanceTimersByTimeAsync(3 * DEFAULT_IDLE_CHECK_MS)
    expect(kinds(fake)).toEqual(['stream', 'head', 'head', 'head'])
    expect(fake.requests.map((r) => r.at)).toEqual([0, 8_000, 16_000, 24_000])
    // Another client starts a turn: the next check sees it and the stream opens at once.
    fake.events.push(event(2), event(3))
    await vi.advanceTimersByTimeAsync(DEFAULT_IDLE_CHECK_MS)
    expect(fake.requests.slice(-2)).toEqual([
      { at: 32_000, kind: 'head' },
      { at: 32_000, kind: 'stream', after: 1 },
    ])
    // The status never left `open`: resting is not a disconnection.
    expect(statuses).toEqual(['connecting', 'open'])
    subscription.close()
  })

  it('reconnects at once when news is expected (a turn at work), without checking the head', async () => {
    const { fake, subscription, state } = subscribe()
    state.busy = true
    await vi.advanceTimersByTimeAsync(0)
    await vi.advanceTimersByTimeAsync(600)
    // At once, but no more often than every 250 ms.
    expect(fake.requests).toEqual([
      { at: 0, kind: 'stream', after: 0 },
      { at: 250, kind: 'stream', after: 0 },
      { at: 500, kind: 'stream', after: 0 },
    ])
    subscription.close()
  })

  it('opens the stream at once on wake() (a send), and on the page being shown or focused', async () => {
    const document = Object.assign(new EventTarget(), { visibilityState: 'visible' })
    const window = new EventTarget()
    vi.stubGlobal('document', document)
    vi.stubGlobal('window', window)
    const { fake, subscription } = subscribe()
    await vi.advanceTimersByTimeAsync(1_000)
    subscription.wake()
    await vi.advanceTimersByTimeAsync(1_000)
    window.dispatchEvent(new Event('focus'))
    await vi.advanceTimersByTimeAsync(1_000)
    document.dispatchEvent(new Event('visibilitychange'))
    await vi.advanceTimersByTimeAsync(0)
    expect(fake.requests).toEqual([
      { at: 0, kind: 'stream', after: 0 },
      { at: 1_000, kind: 'stream', after: 0 },
      { at: 2_000, kind: 'stream', after: 0 },
      { at: 3_000, kind: 'stream', after: 0 },
    ])
    // Hidden, it checks once a minute; shown again, it opens the stream at once.
    document.visibilityState = 'hidden'
    document.dispatchEvent(new Event('visibilitychange'))
    await vi.advanceTimersByTimeAsync(HIDDEN_CHECK_MS + 1_000)
    expect(kinds(fake).slice(4)).toEqual(['head'])
    document.visibilityState = 'visible'
    document.dispatchEvent(new Event('visibilitychange'))
    await vi.advanceTimersByTimeAsync(0)
    expect(kinds(fake).slice(4)).toEqual(['head', 'stream'])
    subscription.close()
    // Closed: the page's events no longer reach it.
    window.dispatchEvent(new Event('focus'))
    await vi.advanceTimersByTimeAsync(DEFAULT_IDLE_CHECK_MS * 2)
    expect(kinds(fake).slice(4)).toEqual(['head', 'stream'])
  })

  it('a failed head check opens the stream, which reports the failure and backs off', async () => {
    const { fake, subscription, statuses } = subscribe({ idleCheckMs: 1_000 })
    await vi.advanceTimersByTimeAsync(0)
    fake.headFails = true
    fake.ends.push('drop')
    await vi.advanceTimersByTimeAsync(1_000)
    expect(kinds(fake)).toEqual(['stream', 'head', 'stream'])
    expect(statuses).toEqual(['connecting', 'open', 'reconnecting'])
    subscription.close()
  })

  it('a drop (no quiet comment) still reconnects with backoff', async () => {
    const { fake, subscription, statuses } = subscribe({ idleCheckMs: 60_000 })
    fake.ends.push('quiet', 'drop')
    await vi.advanceTimersByTimeAsync(0)
    subscription.wake()
    await vi.advanceTimersByTimeAsync(0)
    expect(fake.requests.map((r) => r.at)).toEqual([0, 0])
    // Equal jitter on the server's 1 s hint: 0.5 to 1 s.
    await vi.advanceTimersByTimeAsync(499)
    expect(fake.requests.length).toBe(2)
    await vi.advanceTimersByTimeAsync(501)
    expect(fake.requests.length).toBe(3)
    expect(statuses).toEqual(['connecting', 'open', 'reconnecting', 'open'])
    subscription.close()
  })

  it("backs off from the hint before the head, not the quiet end's `retry:` (meant for plain EventSources)", async () => {
    const { fake, subscription } = subscribe({ idleCheckMs: 60_000 })
    await vi.advanceTimersByTimeAsync(0)
    fake.streamFails = true
    subscription.wake()
    await vi.advanceTimersByTimeAsync(0)
    expect(fake.requests.length).toBe(2)
    // 0.5 to 1 s from the 1 s hint; the quiet end's 5 s would wait 2.5 s or more.
    await vi.advanceTimersByTimeAsync(1_000)
    expect(fake.requests.length).toBe(3)
    subscription.close()
  })

  it('a head below what was applied opens the stream, which starts the other log over', async () => {
    const { fake, subscription, applied } = subscribe({ idleCheckMs: 1_000 })
    fake.events.push(event(1), event(2))
    await vi.advanceTimersByTimeAsync(0)
    expect(applied().map((e) => e.index)).toEqual([1, 2])
    // The server restarted with a new log holding one event.
    fake.events = [event(1, 'other')]
    await vi.advanceTimersByTimeAsync(1_000)
    await vi.advanceTimersByTimeAsync(0)
    expect(applied().map((e) => e.id)).toEqual(['other'])
    subscription.close()
  })

  it('a head check naming another life, at the same index, opens the stream, which starts the other log over', async () => {
    const { fake, subscription, applied } = subscribe({ idleCheckMs: 1_000 })
    fake.events.push(event(1, 'e1', 'L1'), event(2, 'e2', 'L1'))
    await vi.advanceTimersByTimeAsync(0)
    expect(applied().map((e) => e.id)).toEqual(['e1', 'e2'])
    // Erased elsewhere and started over, to the same length: only the life tells.
    fake.events = [event(1, 'n1', 'L2'), event(2, 'n2', 'L2')]
    await vi.advanceTimersByTimeAsync(1_000)
    await vi.advanceTimersByTimeAsync(0)
    expect(applied().map((e) => e.id)).toEqual(['n1', 'n2'])
    subscription.close()
  })

  it('tells its consumer the head: from each check, and unknown while a resumed stream opens', async () => {
    const { fake, subscription, heads } = subscribe({ idleCheckMs: 1_000 })
    fake.events.push(event(1))
    await vi.advanceTimersByTimeAsync(2_000)
    expect(heads).toEqual([1, 1, 1])
    fake.events.push(event(2))
    await vi.advanceTimersByTimeAsync(1_000)
    // The check saw 2 (not caught up), the new stream is unknown until its head marker says 2.
    expect(heads.slice(3)).toEqual([2, undefined, 2])
    subscription.close()
  })
})
