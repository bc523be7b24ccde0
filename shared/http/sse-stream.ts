import type { StoredEvent } from '../log/event.ts'
import { HEARTBEAT_FRAME, headFrame, QUIET_FRAME, retryFrame } from './sse-frames.ts'
import {
  DEFAULT_BUFFER_BYTES,
  DEFAULT_PAGE_EVENTS,
  DEFAULT_QUIET_MS,
  DEFAULT_QUIET_RETRY_MS,
  DEFAULT_SETTLED_QUIET_MS,
  GLOBAL_SSE_TIMERS,
  type SseResponseOptions,
  type SseSource,
  type SseTimers,
} from './sse-options.ts'

/** `SseResponseOptions` with their defaults. */
export interface SseSettings {
  readonly heartbeatMs: number
  readonly maxDurationMs: number | undefined
  readonly retryMs: number
  readonly quietMs: number | false
  readonly settledQuietMs: number | false
  readonly quietRetryMs: number
  readonly bufferBytes: number
  readonly pageEvents: number
  readonly clock: SseTimers
}

export function sseSettings(options: SseResponseOptions): SseSettings {
  const {
    heartbeatMs = 15_000,
    maxDurationMs,
    retryMs = 1_000,
    quietMs = DEFAULT_QUIET_MS,
    settledQuietMs = DEFAULT_SETTLED_QUIET_MS,
    quietRetryMs = DEFAULT_QUIET_RETRY_MS,
    bufferBytes = DEFAULT_BUFFER_BYTES,
    pageEvents = DEFAULT_PAGE_EVENTS,
    timers: clock = GLOBAL_SSE_TIMERS,
  } = options
  return {
    heartbeatMs,
    maxDurationMs,
    retryMs,
    quietMs,
    settledQuietMs,
    quietRetryMs,
    bufferBytes,
    pageEvents,
    clock,
  }
}

/** One SSE response as it runs: where it read to, what it holds, and whether it ended. */
export interface SseStream {
  readonly source: SseSource
  readonly options: SseResponseOptions
  readonly settings: SseSettings
  readonly controller: ReadableStreamDefaultController<Uint8Array>
  /** Aborted when the stream ends, for whatever reason: stops every read. */
  readonly stop: AbortController
  readonly timers: { handle: unknown; interval: boolean }[]
  ended: boolean
  cursor: number
  /** The life of the events this stream sent: one log, never two. */
  life: string | undefined
  /** Events read by page and not yet sent. */
  page: StoredEvent[]
  /** Set once a page came back short: the tail takes over from there. */
  caughtUp: boolean
  tail: { iterator: AsyncIterator<StoredEvent>; abort: AbortController } | undefined
  /** The session settled with the last event this stream sent (`options.settled`). */
  settled: boolean
}

/** The stream started: its first frames sent, its heartbeat and `maxDurationMs` timers running. */
export function openStream(
  source: SseSource,
  from: number,
  options: SseResponseOptions,
  controller: ReadableStreamDefaultController<Uint8Array>,
): SseStream {
  const settings = sseSettings(options)
  const { clock, maxDurationMs } = settings
  const stream: SseStream = {
    source,
    options,
    settings,
    controller,
    stop: new AbortController(),
    timers: [],
    ended: false,
    cursor: from,
    life: undefined,
    page: [],
    caughtUp: false,
    tail: undefined,
    settled: false,
  }
  send(stream, retryFrame(settings.retryMs))
  if (options.head !== undefined) send(stream, headFrame(options.head))
  // A queue already full means the reader is not reading: a heartbeat would not help.
  stream.timers.push({
    handle: clock.setInterval(() => {
      if ((controller.desiredSize ?? 0) > 0) send(stream, HEARTBEAT_FRAME)
    }, settings.heartbeatMs),
    interval: true,
  })
  if (maxDurationMs !== undefined)
    stream.timers.push({
      handle: clock.setTimeout(() => end(stream, 'close'), maxDurationMs),
      interval: false,
    })
  if (options.signal?.aborted) end(stream, 'close')
  return stream
}

/** Stops reading the live tail (the stream goes on, from pages). */
export function dropTail(stream: SseStream): void {
  const { tail } = stream
  if (!tail) return
  tail.abort.abort()
  void tail.iterator.return?.().catch(() => undefined)
  stream.tail = undefined
}

/** Ends the stream once: closed, closed after a quiet end's frames, or left (the reader cancelled). */
export function end(stream: SseStream, how: 'close' | 'quiet' | 'leave'): void {
  if (stream.ended) return
  stream.ended = true
  stream.stop.abort()
  dropTail(stream)
  const { clock } = stream.settings
  for (const { handle, interval } of stream.timers) {
    if (interval) clock.clearInterval(handle)
    else clock.clearTimeout(handle)
  }
  if (how === 'leave') return
  try {
    if (how === 'quiet') {
      stream.controller.enqueue(retryFrame(stream.settings.quietRetryMs))
      stream.controller.enqueue(QUIET_FRAME)
    }
    stream.controller.close()
  } catch {
    // Already closed or errored.
  }
}

export function fail(stream: SseStream, error: unknown): void {
  if (stream.ended) return
  end(stream, 'leave')
  stream.controller.error(error)
}

export function send(stream: SseStream, frame: Uint8Array): void {
  if (!stream.ended) stream.controller.enqueue(frame)
}
