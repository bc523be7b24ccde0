import { createParser } from 'eventsource-parser'
import type { StoredEvent } from '../../../shared/log/event.ts'

/** One SSE frame and when this client read it. */
export type SseFrame =
  | { kind: 'event'; at: number; event: StoredEvent }
  | { kind: 'comment'; at: number; comment: string }
  | { kind: 'retry'; at: number; ms: number }

export interface SseConnection {
  /** When the request was sent. */
  readonly requestedAt: number
  /** Every frame so far, in arrival order. */
  readonly frames: readonly SseFrame[]
  /** When the stream ended, by the server or the network; undefined while open or closed by `close()`. */
  endedAt(): number | undefined
  /**
   * The first frame, already read or to come, that `matches`; `'ended'`
   * when the stream ends first, `'timeout'` when `timeoutMs` passes first.
   */
  next(
    matches: (frame: SseFrame) => boolean,
    timeoutMs: number,
  ): Promise<SseFrame | 'ended' | 'timeout'>
  /** Closes the connection, as a browser tab that goes away. */
  close(): void
}

export interface SseOptions {
  headers?: readonly [string, string][]
  fetch?: typeof fetch
  /** Monotonic milliseconds since the epoch. */
  now?: () => number
}

export const monotonicNow = (): number => performance.timeOrigin + performance.now()

/** A `: head N` comment's index, or undefined for any other frame. */
export function headOf(frame: SseFrame): number | undefined {
  if (frame.kind !== 'comment') return undefined
  const match = /^head (\d+)$/.exec(frame.comment)
  return match ? Number(match[1]) : undefined
}

/**
 * Opens a session's SSE stream and reads it in the background, stamping
 * each frame with the time its bytes were read (frames that came in one
 * read share it). A response that is not a 200 event stream is an error
 * with its status and the start of its body.
 */
export async function openSse(url: string, options: SseOptions = {}): Promise<SseConnection> {
  const now = options.now ?? monotonicNow
  const fetchImpl = options.fetch ?? fetch
  const abort = new AbortController()
  const requestedAt = now()
  const headers = new Headers(options.headers as [string, string][] | undefined)
  headers.set('accept', 'text/event-stream')
  const response = await fetchImpl(url, { headers, signal: abort.signal })
  const type = response.headers.get('content-type') ?? ''
  if (response.status !== 200 || !type.startsWith('text/event-stream') || !response.body) {
    const body = await response.text().catch(() => '')
    abort.abort()
    throw new Error(
      `GET ${url} answered ${response.status} ${type || '(no content-type)'}: ${body.slice(0, 300)}`,
    )
  }

  const frames: SseFrame[] = []
  const waiters = new Set<(frame: SseFrame | 'ended') => void>()
  let endedAt: number | undefined
  let closed = false
  let readAt = requestedAt
  const push = (frame: SseFrame) => {
    frames.push(frame)
    for (const waiter of [...waiters]) waiter(frame)
  }
  const parser = createParser({
    onEvent: (message) => {
      let event: StoredEvent
      try {
        event = JSON.parse(message.data) as StoredEvent
      } catch {
        return
      }
      push({ kind: 'event', at: readAt, event })
    },
    onComment: (comment) => push({ kind: 'comment', at: readAt, comment: comment.trim() }),
    onRetry: (ms) => push({ kind: 'retry', at: readAt, ms }),
  })

  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        readAt = now()
        parser.feed(decoder.decode(value, { stream: true }))
      }
    } catch {
      // Closed by us, or the network dropped it: either way the stream is over.
    }
    if (!closed) endedAt = now()
    for (const waiter of [...waiters]) waiter('ended')
  })()

  return {
    requestedAt,
    frames,
    endedAt: () => endedAt,
    next(matches, timeoutMs) {
      const found = frames.find(matches)
      if (found) return Promise.resolve(found)
      if (endedAt !== undefined || closed) return Promise.resolve('ended')
      return new Promise((resolve) => {
        const timer = setTimeout(() => finish('timeout'), Math.max(0, timeoutMs))
        const waiter = (frame: SseFrame | 'ended') => {
          if (frame === 'ended' || matches(frame)) finish(frame)
        }
        const finish = (result: SseFrame | 'ended' | 'timeout') => {
          clearTimeout(timer)
          waiters.delete(waiter)
          resolve(result)
        }
        waiters.add(waiter)
      })
    },
    close() {
      if (closed) return
      closed = true
      abort.abort()
      void reader.cancel().catch(() => undefined)
    },
  }
}
