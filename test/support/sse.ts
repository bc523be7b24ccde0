import { createParser, type EventSourceMessage } from 'eventsource-parser'

export interface SseRead {
  messages: EventSourceMessage[]
  comments: string[]
  retry: number | undefined
  /** True when the server closed the stream before we stopped reading. */
  ended: boolean
}

/**
 * Reads an SSE response until `until` says stop, the stream ends, or the
 * timeout passes; then cancels the body.
 */
export async function readSse(
  response: Response,
  {
    until = () => false,
    timeoutMs = 5_000,
  }: { until?: (read: SseRead) => boolean; timeoutMs?: number } = {},
): Promise<SseRead> {
  const read: SseRead = { messages: [], comments: [], retry: undefined, ended: false }
  const parser = createParser({
    onEvent: (message) => read.messages.push(message),
    onComment: (comment) => read.comments.push(comment),
    onRetry: (retry) => {
      read.retry = retry
    },
  })
  const reader = (response.body as ReadableStream<Uint8Array>).getReader()
  const decoder = new TextDecoder()
  const deadline = Date.now() + timeoutMs
  try {
    while (!until(read)) {
      const left = deadline - Date.now()
      if (left <= 0) break
      const next = await Promise.race([
        reader.read(),
        new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), left)),
      ])
      if (next === 'timeout') break
      if (next.done) {
        read.ended = true
        break
      }
      parser.feed(decoder.decode(next.value, { stream: true }))
    }
  } finally {
    await reader.cancel().catch(() => undefined)
  }
  return read
}
