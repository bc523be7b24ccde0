import type { SseResponseOptions, SseSource } from './sse-options.ts'
import { pullFrame } from './sse-pull.ts'
import { end, openStream, type SseStream, sseSettings } from './sse-stream.ts'

export {
  /** @internal Exported for the benchmarks (knip --production). */
  DEFAULT_QUIET_MS,
  type SseResponseOptions,
  type SseSource,
} from './sse-options.ts'

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
  // Set when the stream starts, which the constructor does at once.
  let stream!: SseStream
  options.signal?.addEventListener('abort', () => end(stream, 'close'), { once: true })
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        stream = openStream(source, from, options, controller)
      },
      pull: () => pullFrame(stream),
      cancel: () => end(stream, 'leave'),
    },
    new ByteLengthQueuingStrategy({ highWaterMark: sseSettings(options).bufferBytes }),
  )
}
