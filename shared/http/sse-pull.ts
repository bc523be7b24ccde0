import type { StoredEvent } from '../log/event.ts'
import { afterFrame, eventFrame } from './sse-frames.ts'
import { dropTail, end, fail, type SseStream, send } from './sse-stream.ts'

/**
 * One pull of the stream's reader: it sends at least one frame (or ends
 * the stream), as a pull that sent nothing would not be called again.
 */
export async function pullFrame(stream: SseStream): Promise<void> {
  const { options, controller } = stream
  for (;;) {
    let event: StoredEvent | undefined
    try {
      event = await nextEvent(stream)
    } catch (error) {
      fail(stream, error)
      return
    }
    if (!event || stream.ended) return
    // The log this stream read is gone (erased, and perhaps started
    // over, its indices repeated): end it, so the reader reconnects and
    // the markers of its resume tell it to start over.
    if (stream.life !== undefined && event.life !== stream.life) {
      end(stream, 'close')
      return
    }
    stream.life = event.life
    stream.cursor = event.index
    const settledHere = settles(stream, event)
    if (options.after !== undefined && event.index <= options.after) {
      if (event.index !== options.after) continue
      send(stream, afterFrame(event))
    } else {
      send(stream, eventFrame(event))
      stream.settled = settledHere
    }
    // The reader is behind: stop reading the tail, which would hold (and
    // then read in one go) whatever is appended until the reader pulls.
    if ((controller.desiredSize ?? 0) <= 0 && stream.tail) {
      dropTail(stream)
      stream.caughtUp = false
    }
    return
  }
}

/** Whether the session settled with `event` (`options.settled`; a throwing one says no). */
function settles({ options }: SseStream, event: StoredEvent): boolean {
  if (!options.settled) return false
  try {
    return options.settled(event)
  } catch {
    return false
  }
}

/** The next event to send: from the page read, else a new page, else the tail; undefined once the stream ended. */
async function nextEvent(stream: SseStream): Promise<StoredEvent | undefined> {
  const { source } = stream
  while (!stream.ended) {
    const paged = stream.page.shift()
    if (paged) return paged
    if (!stream.caughtUp) {
      const read = await source.read(stream.cursor, stream.settings.pageEvents)
      stream.page = read.filter((event) => event.index > stream.cursor)
      if (read.length < stream.settings.pageEvents) stream.caughtUp = true
      continue
    }
    const next = await fromTail(stream)
    if (next) return next
  }
  return undefined
}

/**
 * One event from the live tail (opened when there is none), under the quiet
 * timer: undefined when it was one already sent, or the tail ended.
 */
async function fromTail(stream: SseStream): Promise<StoredEvent | undefined> {
  const { clock, quietMs, settledQuietMs } = stream.settings
  if (!stream.tail) {
    const abort = new AbortController()
    stream.stop.signal.addEventListener('abort', () => abort.abort(), {
      once: true,
      signal: abort.signal,
    })
    const iterator = stream.source.tail(stream.cursor, abort.signal)[Symbol.asyncIterator]()
    stream.tail = { iterator, abort }
  }
  const current = stream.tail
  const quietFor =
    quietMs === false
      ? undefined
      : stream.settled && settledQuietMs !== false
        ? Math.min(quietMs, settledQuietMs)
        : quietMs
  const quiet =
    quietFor === undefined
      ? undefined
      : clock.setTimeout(() => end(stream, 'quiet'), Math.max(0, quietFor))
  try {
    const result = await current.iterator.next()
    if (result.done) {
      if (stream.tail === current) end(stream, 'close')
      return undefined
    }
    return result.value.index > stream.cursor ? result.value : undefined
  } finally {
    if (quiet !== undefined) clock.clearTimeout(quiet)
  }
}
