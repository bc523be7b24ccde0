import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { inputs } from '../../../shared/ai.ts'
import { createAgentClient, DEFAULT_GC_TIME_MS } from '../../../shared/client/index.ts'
import type { StoredEvent } from '../../../shared/index.ts'

/** A fetch whose streams stay open (and quiet) and whose pushes answer when the test says. */
function stubFetch() {
  const pushes: ((events: StoredEvent[]) => void)[] = []
  let streams = 0
  const fetch = async (_input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    if (init?.method === 'POST') {
      const events = await new Promise<StoredEvent[]>((resolve) => pushes.push(resolve))
      return Response.json({ events })
    }
    streams++
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        init?.signal?.addEventListener('abort', () => controller.error(new Error('aborted')))
      },
    })
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
  }
  return { fetch, pushes, streams: () => streams }
}

const stored = (id: string, index: number): StoredEvent => ({
  id,
  type: 'ai.control.requested',
  payload: { action: 'resume' },
  sessionId: 's',
  life: '',
  index,
  timestamp: 0,
})

describe('createAgentClient: gcTime', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('"Idle client session objects expire after five minutes by default"', () => {
    const client = createAgentClient({ api: 'http://a2.test/api/agent', fetch: stubFetch().fetch })
    const session = client.session('s')
    vi.advanceTimersByTime(DEFAULT_GC_TIME_MS - 1)
    expect(client.session('s')).toBe(session)
    // Looking it up is not activity: the five minutes ran from when it went idle.
    vi.advanceTimersByTime(1)
    expect(client.session('s')).not.toBe(session)
  })

  it('keeps a session with listeners, and collects it gcTime after the last one leaves', async () => {
    const stub = stubFetch()
    const client = createAgentClient({
      api: 'http://a2.test/api/agent',
      gcTime: 1_000,
      fetch: stub.fetch,
    })
    const session = client.session('s')
    const unsubscribe = session.subscribe(() => {})
    await vi.advanceTimersByTimeAsync(5_000)
    expect(client.session('s')).toBe(session)
    expect(stub.streams()).toBe(1)
    unsubscribe()
    await vi.advanceTimersByTimeAsync(999)
    expect(client.session('s')).toBe(session)
    await vi.advanceTimersByTimeAsync(1)
    expect(client.session('s')).not.toBe(session)
    client.dispose()
  })

  it('keeps a session while a push is in flight', async () => {
    const stub = stubFetch()
    const client = createAgentClient({
      api: 'http://a2.test/api/agent',
      gcTime: 1_000,
      fetch: stub.fetch,
    })
    const session = client.session('s')
    const pushed = session.push(...inputs.resume({ id: 'r1' }))
    await vi.advanceTimersByTimeAsync(5_000)
    expect(client.session('s')).toBe(session)
    stub.pushes[0]?.([stored('r1', 1)])
    expect(await pushed).toEqual([stored('r1', 1)])
    await vi.advanceTimersByTimeAsync(1_000)
    expect(client.session('s')).not.toBe(session)
  })

  it('a collected session object someone still holds takes its place again when subscribed', async () => {
    const stub = stubFetch()
    const client = createAgentClient({
      api: 'http://a2.test/api/agent',
      gcTime: 0,
      fetch: stub.fetch,
    })
    const held = client.session('s')
    await vi.advanceTimersByTimeAsync(0)
    const stop = held.subscribe(() => {})
    expect(client.session('s')).toBe(held)
    stop()
    client.dispose()
  })

  it('gcTime: Infinity never collects', async () => {
    const client = createAgentClient({
      api: 'http://a2.test/api/agent',
      gcTime: Number.POSITIVE_INFINITY,
      fetch: stubFetch().fetch,
    })
    const session = client.session('s')
    await vi.advanceTimersByTimeAsync(24 * 60 * 60 * 1000)
    expect(client.session('s')).toBe(session)
  })
})
