import { describe, expect, it } from 'vitest'
import { logEndpoint } from '../../../shared/http/log-endpoint.ts'
import { eventLog, type StoredEvent } from '../../../shared/index.ts'
import type { EventStore, TailOptions } from '../../../shared/log/event-store.ts'
import { memoryEventStore } from '../../../shared/stores/memory/memory-event-store.ts'
import { tailLoop } from '../../../shared/stores/tail-loop.ts'
import { sleep } from '../../../shared/timing/sleep.ts'
import { readSse } from '../../support/sse.ts'

/**
 * A memory store whose every read is counted, the live tail's included: its
 * tail polls like the DynamoDB store's, so what the stream pulls from the log
 * is exactly what these reads return.
 */
function countedStore() {
  const store = memoryEventStore()
  const reads: number[] = []
  const read: EventStore['read'] = async (sessionId, options) => {
    const events = await store.read(sessionId, options)
    reads.push(events.length)
    return events
  }
  const counted: EventStore = {
    ...store,
    read,
    tail: (sessionId: string, { after = 0, signal }: TailOptions = {}) =>
      tailLoop(
        {
          read: (cursor) => read(sessionId, { after: cursor }),
          waitForNews: (_cursor, _idle, abort) => sleep(2, abort),
        },
        after,
        signal,
      ),
  }
  return {
    store: counted,
    /** Events the store handed out, in all. */
    eventsRead: () => reads.reduce((sum, n) => sum + n, 0),
    /** The most events one read returned. */
    largestRead: () => Math.max(0, ...reads),
  }
}

/** About 1 KB of payload each: 64 KiB of frames is some 60 events. */
const notes = (from: number, count: number) =>
  Array.from({ length: count }, (_, n) => ({
    id: `n${from + n}`,
    type: 'note.added',
    payload: { text: 'x'.repeat(1_000) },
  }))

function setup() {
  const counted = countedStore()
  const log = eventLog({ store: counted.store })
  const fetch = logEndpoint({ log, stream: { quietMs: false } })
  const open = (query = '') => fetch(new Request(`http://a2.test/agent?sessionId=s1${query}`))
  const append = async (batches: number, size: number, pauseMs = 0) => {
    for (let batch = 0; batch < batches; batch++) {
      const head = await log.session('s1').head()
      await log.session('s1').append(notes(head + 1, size))
      await sleep(pauseMs)
    }
  }
  return { ...counted, log, open, append }
}

describe('GET: the stream reads the log at its reader pace', () => {
  it('a reader that never reads makes the server read a bounded number of events, however many are appended', async () => {
    const { open, append, eventsRead } = setup()
    const response = await open()
    await sleep(20)
    await append(100, 30, 1)
    await sleep(50)
    // 3,000 events appended; 64 KiB of frames wait for the reader, and one batch the tail had read.
    expect(eventsRead()).toBeLessThanOrEqual(150)
    await response.body?.cancel()
  })

  it('opening a stream on a large session reads one page, not the session', async () => {
    const { open, append, eventsRead, largestRead } = setup()
    await append(100, 30)
    const response = await open()
    await sleep(50)
    expect(eventsRead()).toBeLessThanOrEqual(100)
    expect(largestRead()).toBeLessThanOrEqual(100)
    await response.body?.cancel()
  })

  it('a slow reader gets every event once, in order, and a stalled one never has the backlog read in one go', async () => {
    const { open, append, largestRead } = setup()
    const response = await open()
    const reader = (response.body as ReadableStream<Uint8Array>).getReader()
    // The reader stalls while 2,000 events are appended (50 appends of 40), then reads slowly.
    await sleep(20)
    await append(50, 40, 4)
    const ids: number[] = []
    const decoder = new TextDecoder()
    let text = ''
    while (ids.length < 2_000) {
      const next = await reader.read()
      if (next.done) break
      text += decoder.decode(next.value, { stream: true })
      for (const match of text.matchAll(/^id: (\d+)$/gm)) ids.push(Number(match[1]))
      text = text.slice(text.lastIndexOf('\n\n') + 2)
      if (ids.length % 100 === 0) await sleep(1)
    }
    await reader.cancel()
    expect(ids).toEqual(Array.from({ length: 2_000 }, (_, n) => n + 1))
    // Pages of 100 and the tail's batches of what one poll found, never the 2,000.
    expect(largestRead()).toBeLessThanOrEqual(150)
  })

  it('a resume reads from its index by pages and names the event it resumes after', async () => {
    const { open, append, largestRead } = setup()
    await append(10, 40)
    const read = await readSse(await open('&after=250'), {
      until: (r) => r.messages.length === 150,
    })
    expect(read.comments.map((c) => c.trim())).toEqual([
      'head 400',
      'after 250 "n250"',
      expect.stringMatching(/^life 250 ".+"$/),
    ])
    expect(read.messages.map((m) => Number(m.id))).toEqual(
      Array.from({ length: 150 }, (_, n) => n + 251),
    )
    expect(largestRead()).toBeLessThanOrEqual(100)
    const last = JSON.parse(read.messages.at(-1)?.data ?? '{}') as StoredEvent
    expect(last.id).toBe('n400')
  })
})
