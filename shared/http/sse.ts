import type { StoredEvent } from '../log/event.ts'

/** The timers a stream runs on (`Timers` of shared/timing, which this layer does not import). */
interface SseTimers {
  setTimeout(callback: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
  setInterval(callback: () => void, ms: number): unknown
  clearInterval(handle: unknown): void
}

const GLOBAL_SSE_TIMERS: SseTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  setInterval: (callback, ms) => setInterval(callback, ms),
  clearInterval: (handle) => clearInterval(handle as ReturnType<typeof setInterval>),
}

const encoder = new TextEncoder()

/**
 * One SSE frame per stored event: `id:` is the log index, so a reconnecting
 * EventSource sends it back as `Last-Event-ID` and resumes after it.
 */
function eventFrame(event: StoredEvent): Uint8Array {
  return encoder.encode(`id: ${event.index}\ndata: ${JSON.stringify(event)}\n\n`)
}

/** A comment line: keeps proxies (API Gateway idles out after 5 minutes) from closing the stream. */
const HEARTBEAT_FRAME = encoder.encode(': heartbeat\n\n')

/**
 * The last frame of a stream the server ends because the session was quiet:
 * a client tells this planned end from a drop, and resumes when there is
 * news (an `EventSource` simply reconnects after the `retry:` before it).
 */
const QUIET_FRAME = encoder.encode(': quiet\n\n')

function retryFrame(ms: number): Uint8Array {
  return encoder.encode(`retry: ${ms}\n\n`)
}

/**
 * A comment with the log's index when the stream opened: a client that has
 * applied that index is caught up with everything that existed then.
 */
function headFrame(index: number): Uint8Array {
  return encoder.encode(`: head ${index}\n\n`)
}

/**
 * Comments naming the event at the index a client resumes after (`: after N
 * "id"`, the ID as JSON), then its life (`: life N "life"`): a client that
 * applied another event there, or one of another life, was reading a
 * different log (a store that was reset, a session erased and started over,
 * perhaps with the same IDs). Two comments, so a client that knows only the
 * first still checks the ID.
 */
function afterFrame(event: StoredEvent): Uint8Array {
  return encoder.encode(
    `: after ${event.index} ${JSON.stringify(event.id)}\n\n: life ${event.index} ${JSON.stringify(event.life)}\n\n`,
  )
}

/** Where a stream's events come from: pages of the log, and its live tail. */
export interface SseSource {
  /** At most `limit` events after `after`, in order. */
  read(after: number, limit: number): Promise<StoredEvent[]>
  /** The events after `after`, then every one appended later, until `signal` aborts. */
  tail(after: number, signal: AbortSignal): AsyncIterable<StoredEvent>
}

/**
 * The session has been quiet this long: the stream ends (default 10 s).
 * @internal Exported for the benchmarks (knip --production).
 */
export const DEFAULT_QUIET_MS = 10_000
/**
 * Once the session settled with an event the stream sent (`settled`), it
 * ends after this much quiet instead (default 1 s): the turn it served is
 * over and nothing is on its way, so a client rests and checks the head
 * instead of holding an invocation open for `quietMs`.
 */
const DEFAULT_SETTLED_QUIET_MS = 1_000
/** What a plain `EventSource` waits after a quiet end before it reconnects (default 5 s). */
const DEFAULT_QUIET_RETRY_MS = 5_000
/** Frames queued for a reader that is behind, at most (then the log is not read). */
const DEFAULT_BUFFER_BYTES = 64 * 1024
/** Events read at once while a reader catches up. */
const DEFAULT_PAGE_EVENTS = 100

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

/**
 * Streams events as SSE until the client leaves, `maxDurationMs` passes, the
 * session is quiet for `quietMs`, or the source ends.
 *
 * It reads the log at its reader's pace: a page at a time while catching
 * up, then the live tail while the reader keeps up. When the reader falls
 * behind (`bufferBytes` queued), the tail is dropped and the stream goes
 * back to pages once the reader pulls again, so no read ever returns what
 * piled up while it stalled.
 */
export function sseResponseBody(
  source: SseSource,
  from: number,
  options: SseResponseOptions = {},
): ReadableStream<Uint8Array> {
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
  /** Aborted when the stream ends, for whatever reason: stops every read. */
  const stop = new AbortController()
  const timers: { handle: unknown; interval: boolean }[] = []
  let controller!: ReadableStreamDefaultController<Uint8Array>
  let ended = false

  let cursor = from
  /** The life of the events this stream sent: one log, never two. */
  let life: string | undefined
  /** Events read by page and not yet sent. */
  let page: StoredEvent[] = []
  /** Set once a page came back short: the tail takes over from there. */
  let caughtUp = false
  let tail: { iterator: AsyncIterator<StoredEvent>; abort: AbortController } | undefined
  /** The session settled with the last event this stream sent (`options.settled`). */
  let settled = false
  const settles = (event: StoredEvent): boolean => {
    if (!options.settled) return false
    try {
      return options.settled(event)
    } catch {
      return false
    }
  }

  function dropTail(): void {
    if (!tail) return
    tail.abort.abort()
    void tail.iterator.return?.().catch(() => undefined)
    tail = undefined
  }

  function end(how: 'close' | 'quiet' | 'leave'): void {
    if (ended) return
    ended = true
    stop.abort()
    dropTail()
    for (const { handle, interval } of timers) {
      if (interval) clock.clearInterval(handle)
      else clock.clearTimeout(handle)
    }
    if (how === 'leave') return
    try {
      if (how === 'quiet') {
        controller.enqueue(retryFrame(quietRetryMs))
        controller.enqueue(QUIET_FRAME)
      }
      controller.close()
    } catch {
      // Already closed or errored.
    }
  }

  function fail(error: unknown): void {
    if (ended) return
    end('leave')
    controller.error(error)
  }

  function send(frame: Uint8Array): void {
    if (!ended) controller.enqueue(frame)
  }

  /** The next event to send, or undefined once the stream ended. */
  async function next(): Promise<StoredEvent | undefined> {
    while (!ended) {
      const paged = page.shift()
      if (paged) return paged
      if (!caughtUp) {
        const read = await source.read(cursor, pageEvents)
        page = read.filter((event) => event.index > cursor)
        if (read.length < pageEvents) caughtUp = true
        continue
      }
      if (!tail) {
        const abort = new AbortController()
        stop.signal.addEventListener('abort', () => abort.abort(), {
          once: true,
          signal: abort.signal,
        })
        tail = { iterator: source.tail(cursor, abort.signal)[Symbol.asyncIterator](), abort }
      }
      const current = tail
      const quietFor =
        quietMs === false
          ? undefined
          : settled && settledQuietMs !== false
            ? Math.min(quietMs, settledQuietMs)
            : quietMs
      const quiet =
        quietFor === undefined
          ? undefined
          : clock.setTimeout(() => end('quiet'), Math.max(0, quietFor))
      try {
        const result = await current.iterator.next()
        if (result.done) {
          if (tail === current) end('close')
          continue
        }
        if (result.value.index > cursor) return result.value
      } finally {
        if (quiet !== undefined) clock.clearTimeout(quiet)
      }
    }
    return undefined
  }

  options.signal?.addEventListener('abort', () => end('close'), { once: true })
  return new ReadableStream<Uint8Array>(
    {
      start(streamController) {
        controller = streamController
        send(retryFrame(retryMs))
        if (options.head !== undefined) send(headFrame(options.head))
        // A queue already full means the reader is not reading: a heartbeat would not help.
        timers.push({
          handle: clock.setInterval(() => {
            if ((controller.desiredSize ?? 0) > 0) send(HEARTBEAT_FRAME)
          }, heartbeatMs),
          interval: true,
        })
        if (maxDurationMs !== undefined)
          timers.push({
            handle: clock.setTimeout(() => end('close'), maxDurationMs),
            interval: false,
          })
        if (options.signal?.aborted) end('close')
      },
      // Every pull sends at least one frame (or ends the stream): a pull that
      // sent nothing would not be called again.
      async pull() {
        for (;;) {
          let event: StoredEvent | undefined
          try {
            event = await next()
          } catch (error) {
            fail(error)
            return
          }
          if (!event || ended) return
          // The log this stream read is gone (erased, and perhaps started
          // over, its indices repeated): end it, so the reader reconnects and
          // the markers of its resume tell it to start over.
          if (life !== undefined && event.life !== life) {
            end('close')
            return
          }
          life = event.life
          cursor = event.index
          const settledHere = settles(event)
          if (options.after !== undefined && event.index <= options.after) {
            if (event.index !== options.after) continue
            send(afterFrame(event))
          } else {
            send(eventFrame(event))
            settled = settledHere
          }
          // The reader is behind: stop reading the tail, which would hold (and
          // then read in one go) whatever is appended until the reader pulls.
          if ((controller.desiredSize ?? 0) <= 0 && tail) {
            dropTail()
            caughtUp = false
          }
          return
        }
      },
      cancel: () => end('leave'),
    },
    new ByteLengthQueuingStrategy({ highWaterMark: bufferBytes }),
  )
}
