import type { StoredEvent } from '../log/event.ts'

/** The timers a stream runs on (`Timers` of shared/timing, which this layer does not import). */
export interface SseTimers {
  setTimeout(callback: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
  setInterval(callback: () => void, ms: number): unknown
  clearInterval(handle: unknown): void
}

export const GLOBAL_SSE_TIMERS: SseTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  setInterval: (callback, ms) => setInterval(callback, ms),
  clearInterval: (handle) => clearInterval(handle as ReturnType<typeof setInterval>),
}

/** Where a stream's events come from: pages of the log, and its live tail. */
export interface SseSource {
  /** At most `limit` events after `after`, in order. */
  read(after: number, limit: number): Promise<StoredEvent[]>
  /** The events after `after`, then every one appended later, until `signal` aborts. */
  tail(after: number, signal: AbortSignal): AsyncIterable<StoredEvent>
}

/** The session has been quiet this long: the stream ends (default 10 s). */
export const DEFAULT_QUIET_MS = 10_000
/**
 * Once the session settled with an event the stream sent (`settled`), it
 * ends after this much quiet instead (default 1 s): the turn it served is
 * over and nothing is on its way, so a client rests and checks the head
 * instead of holding an invocation open for `quietMs`.
 */
export const DEFAULT_SETTLED_QUIET_MS = 1_000
/** What a plain `EventSource` waits after a quiet end before it reconnects (default 5 s). */
export const DEFAULT_QUIET_RETRY_MS = 5_000
/** Frames queued for a reader that is behind, at most (then the log is not read). */
export const DEFAULT_BUFFER_BYTES = 64 * 1024
/** Events read at once while a reader catches up. */
export const DEFAULT_PAGE_EVENTS = 100

export interface SseResponseOptions {
  /** Sent first as a `: head N` comment, when known. */
  head?: number
  /**
   * The index the client resumes after. The stream reads from the event
   * there, which is announced by ID (`afterFrame`) instead of sent again:
   * one more item in the first read, a few bytes on the wire.
   */
  after?: number
  /** Comment frame interval (default 15 s). */
  heartbeatMs?: number
  /**
   * End the stream once the session has been quiet this long (nothing
   * appended while the reader was caught up), with `retry: quietRetryMs`
   * and a `: quiet` comment. Default 10 s; `false` never ends for quiet.
   */
  quietMs?: number | false
  /**
   * Whether the session has settled after an event the stream passes (it is
   * called with each, in order, from the first read): nothing will follow
   * without someone acting, as a client's `expectsNews` tells it. After an
   * event the stream sent for which it answers true, the quiet end comes
   * after `settledQuietMs`. Events the client already had (the resume
   * index's) never shorten it: a reconnect to a settled session keeps the
   * full `quietMs`, for a send that is on its way.
   */
  settled?: (event: StoredEvent) => boolean
  /** The quiet that ends a stream once settled (default 1 s; `false`: `quietMs` always). */
  settledQuietMs?: number | false
  /** The `retry:` sent with a quiet end, for plain `EventSource` clients (default 5 s). */
  quietRetryMs?: number
  /**
   * End the response after this long so the client reconnects with
   * `Last-Event-ID` before a platform limit cuts it (API Gateway: 15 min).
   */
  maxDurationMs?: number
  /** Reconnect delay the client is told to use. */
  retryMs?: number
  /**
   * Bytes of frames queued for a reader that does not keep up; past them the
   * log is not read until it does (default 64 KiB). A reader that stalls
   * costs this plus one page, whatever the session's size.
   */
  bufferBytes?: number
  /** Events per read while catching up (default 100). */
  pageEvents?: number
  signal?: AbortSignal
  /** The timers of the heartbeat, the quiet end and `maxDurationMs` (default: the global ones; an agent's clock seam). */
  timers?: SseTimers
}
