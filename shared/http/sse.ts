import type { StoredEvent } from '../log/event.ts'

const encoder = new TextEncoder()

/**
 * One SSE frame per stored event: `id:` is the log index, so a reconnecting
 * EventSource sends it back as `Last-Event-ID` and resumes after it.
 */
export function eventFrame(event: StoredEvent): Uint8Array {
  return encoder.encode(`id: ${event.index}\ndata: ${JSON.stringify(event)}\n\n`)
}

/** A comment line: keeps proxies (API Gateway idles out after 5 minutes) from closing the stream. */
export const HEARTBEAT_FRAME = encoder.encode(': heartbeat\n\n')

export function retryFrame(ms: number): Uint8Array {
  return encoder.encode(`retry: ${ms}\n\n`)
}

/**
 * A comment with the log's index when the stream opened: a client that has
 * applied that index is caught up with everything that existed then.
 */
export function headFrame(index: number): Uint8Array {
  return encoder.encode(`: head ${index}\n\n`)
}

/**
 * A comment naming the event at the index a client resumes after (`: after N
 * "id"`, the ID as JSON): a client that applied another event there was
 * reading a different log (a store that was reset, a session recreated).
 */
export function afterFrame(event: StoredEvent): Uint8Array {
  return encoder.encode(`: after ${event.index} ${JSON.stringify(event.id)}\n\n`)
}

export interface SseResponseOptions {
  /** Sent first as a `: head N` comment, when known. */
  head?: number
  /**
   * The index the client resumes after. `open` starts at the event there
   * (one earlier), which is announced by ID (`afterFrame`) instead of sent
   * again: one more item in the first read, a few bytes on the wire.
   */
  after?: number
  /** Comment frame interval (default 15 s). */
  heartbeatMs?: number
  /**
   * End the response after this long so the client reconnects with
   * `Last-Event-ID` before a platform limit cuts it (API Gateway: 15 min).
   */
  maxDurationMs?: number
  /** Reconnect delay the client is told to use. */
  retryMs?: number
  signal?: AbortSignal
}

/** Streams events as SSE until the client leaves, `maxDurationMs` passes, or the source ends. */
export function sseResponseBody(
  open: (signal: AbortSignal) => AsyncIterable<StoredEvent>,
  options: SseResponseOptions = {},
): ReadableStream<Uint8Array> {
  const { heartbeatMs = 15_000, maxDurationMs, retryMs = 1_000 } = options
  const stop = new AbortController()
  const timers: ReturnType<typeof setTimeout>[] = []
  const finish = (): void => {
    stop.abort()
    for (const timer of timers) clearTimeout(timer)
  }
  options.signal?.addEventListener('abort', finish, { once: true })
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (frame: Uint8Array): void => {
        if (!stop.signal.aborted) controller.enqueue(frame)
      }
      send(retryFrame(retryMs))
      if (options.head !== undefined) send(headFrame(options.head))
      timers.push(setInterval(() => send(HEARTBEAT_FRAME), heartbeatMs))
      if (maxDurationMs !== undefined) timers.push(setTimeout(finish, maxDurationMs))
      try {
        for await (const event of open(stop.signal)) {
          if (options.after !== undefined && event.index <= options.after) {
            if (event.index === options.after) send(afterFrame(event))
            continue
          }
          send(eventFrame(event))
        }
      } catch (error) {
        if (!stop.signal.aborted) controller.error(error)
        finish()
        return
      }
      finish()
      controller.close()
    },
    cancel: finish,
  })
}
