import type { SessionLog } from '../log/event-log.ts'
import type { SseResponseOptions } from './sse.ts'
import { sseResponseBody } from './sse.ts'

/** What a session's stream is opened with, besides the request. */
export interface StreamRequest {
  /** The index the client resumes after (0: from the start). */
  after: number
  /** The log's head when the stream opened. */
  head: number
  /** The stream's `settled` check, when the read hook answered one. */
  settled: SseResponseOptions['settled'] | undefined
  /** The endpoint's own stream options (`LogEndpointOptions.stream`). */
  stream: Omit<SseResponseOptions, 'signal' | 'head' | 'after'> | undefined
}

/** The session's events as an SSE response, resuming after `after`. */
export function streamResponse(
  session: SessionLog,
  request: Request,
  url: URL,
  { after, head, settled, stream }: StreamRequest,
): Response {
  // Read from the resume index's own event, so the stream can name it.
  const from = after > 0 ? after - 1 : 0
  const body = sseResponseBody(
    {
      read: (cursor, limit) => session.read({ after: cursor, limit }),
      tail: (cursor, signal) => session.tail({ after: cursor, signal }),
    },
    from,
    {
      ...stream,
      ...(settled ? { settled } : {}),
      // `&follow`: a reader that does not reconnect (curl) keeps its stream
      // through quiet spells. The default stays the quiet end, which
      // browsers reconnect after; maxDurationMs (and on AWS the stream
      // function's deadline) still end a followed stream.
      ...(url.searchParams.has('follow') ? { quietMs: false as const } : {}),
      head,
      ...(after > 0 ? { after } : {}),
      signal: request.signal,
    },
  )
  return new Response(body, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    },
  })
}
