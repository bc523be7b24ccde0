import { createParser } from 'eventsource-parser'
import type { StoredEvent } from '../../log/event.ts'
import { backoff } from '../../timing/backoff.ts'
import { sleep } from '../../timing/sleep.ts'
import { type BackoffOptions, clientBackoff, DEFAULT_INITIAL_DELAY_MS } from './backoff.ts'
import { type AgentClientError, errorFromResponse, networkError } from './client-error.ts'
import { type Endpoint, resolveHeaders, sessionUrl } from './endpoint.ts'

/**
 * The SSE subscription's state: `connecting` before the first answer,
 * `open` while events flow, `reconnecting` while it waits to resume after a
 * drop, `failed` when the server refused it for good (a 4xx such as 403).
 */
export type ConnectionStatus = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'failed'

export interface SseSubscriptionOptions {
  endpoint: Endpoint
  sessionId: string
  /** The index of the last event applied; every (re)connect resumes after it. */
  lastIndex(): number
  /** The ID of the event at `lastIndex()`, when known: checked against the server's `: after` marker. */
  lastId?(): string | undefined
  /**
   * The server's log is not the one the applied events came from: its head
   * is below `lastIndex()`, or its event there has another ID (a memory
   * store after a restart, a recreated session). The consumer drops what it
   * applied, so `lastIndex()` is 0, and the stream reads again from the start.
   */
  onRewind?(): void
  /** Receives events in log order, each exactly the next index: never twice, never a gap. */
  onEvents(events: StoredEvent[]): void
  onStatus(status: ConnectionStatus, error: AgentClientError | null): void
  /** The log's index when this connection opened (the server's `: head N`). */
  onHead?(index: number): void
  backoff?: BackoffOptions
}

interface Attempt {
  /** Events or heartbeats arrived, so the connection was healthy: reset the backoff. */
  progress: boolean
  /** The server holds another log: read it from the start, at once. */
  rewound: boolean
  error: AgentClientError | null
  /** A refusal that retrying cannot fix. */
  fatal: boolean
}

/**
 * Follows a session's log over SSE until closed. After a drop it resumes
 * from `lastIndex()` with backoff and jitter; it ignores events at or below
 * that index (a replay after a reconnect) and re-reads from it when an index
 * is skipped, so the consumer sees the log exactly once, in order. When the
 * server turns out to hold another log (`onRewind`), it starts over from 0.
 *
 * @example
 * const stream = openSseSubscription({ endpoint, sessionId: 's1', lastIndex: () => index, onEvents: apply, onStatus: show })
 * stream.close()
 */
export function openSseSubscription(options: SseSubscriptionOptions): { close(): void } {
  const closed = new AbortController()
  let retryHint: number | undefined
  void (async () => {
    let attempt = 0
    let error: AgentClientError | null = null
    while (!closed.signal.aborted) {
      options.onStatus(attempt === 0 && error === null ? 'connecting' : 'reconnecting', error)
      const result = await readOnce(options, closed.signal, (ms) => {
        retryHint = ms
      })
      if (closed.signal.aborted) return
      if (result.rewound) {
        options.onRewind?.()
        attempt = 0
        error = null
        continue
      }
      error = result.error
      if (result.fatal) {
        options.onStatus('failed', error)
        return
      }
      if (result.progress) attempt = 0
      const initialDelayMs =
        options.backoff?.initialDelayMs ?? retryHint ?? DEFAULT_INITIAL_DELAY_MS
      options.onStatus('reconnecting', error)
      await sleep(
        backoff(attempt++, clientBackoff({ ...options.backoff, initialDelayMs })),
        closed.signal,
      )
    }
  })()
  return {
    close: () => {
      closed.abort()
      options.onStatus('idle', null)
    },
  }
}

async function readOnce(
  options: SseSubscriptionOptions,
  closed: AbortSignal,
  onRetry: (ms: number) => void,
): Promise<Attempt> {
  const connection = new AbortController()
  const abort = (): void => connection.abort()
  closed.addEventListener('abort', abort, { once: true })
  const attempt: Attempt = { progress: false, rewound: false, error: null, fatal: false }
  try {
    const headers = await resolveHeaders(options.endpoint.headers)
    headers.set('accept', 'text/event-stream')
    const url = sessionUrl(options.endpoint.api, options.sessionId, options.lastIndex())
    let response: Response
    try {
      response = await options.endpoint.fetch(url, { headers, signal: connection.signal })
    } catch (cause) {
      return { ...attempt, error: networkError(cause) }
    }
    if (!response.ok || !response.body) {
      const error = await errorFromResponse(response)
      return { ...attempt, error, fatal: !error.retryable && response.status !== 408 }
    }
    options.onStatus('open', null)
    let gap = false
    let received: StoredEvent[] = []
    const parser = createParser({
      onEvent: (message) => {
        received.push(JSON.parse(message.data) as StoredEvent)
      },
      onComment: (comment) => {
        attempt.progress = true
        if (attempt.rewound) return
        const head = /^\s*head (\d+)\s*$/.exec(comment)
        if (head) {
          // A log never shrinks: a head below what was applied is another log.
          if (options.onRewind && Number(head[1]) < options.lastIndex()) attempt.rewound = true
          else options.onHead?.(Number(head[1]))
        }
        const after = /^\s*after (\d+) (.+)$/.exec(comment)
        if (after && options.onRewind && Number(after[1]) === options.lastIndex()) {
          const known = options.lastId?.()
          const named = parseId(after[2] as string)
          if (known !== undefined && named !== undefined && named !== known) attempt.rewound = true
        }
      },
      onRetry,
    })
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
    try {
      while (!gap) {
        const { value, done } = await reader.read()
        if (done) break
        parser.feed(value)
        // Nothing from another log is applied.
        if (attempt.rewound) break
        const batch = received
        received = []
        const next: StoredEvent[] = []
        let last = options.lastIndex()
        for (const event of batch) {
          if (event.index <= last) continue
          // A skipped index means this answer cannot be trusted past here: re-read from `last`.
          if (event.index !== last + 1) {
            gap = true
            break
          }
          next.push(event)
          last = event.index
        }
        if (next.length > 0) {
          attempt.progress = true
          options.onEvents(next)
        }
      }
    } finally {
      await reader.cancel().catch(() => undefined)
    }
    return attempt
  } catch (cause) {
    // A drop mid-body (reset, server restart) or an unparsable frame: resume.
    return { ...attempt, error: networkError(cause) }
  } finally {
    closed.removeEventListener('abort', abort)
    connection.abort()
  }
}

/** The `: after` marker's ID (JSON); an unreadable one names nothing. */
function parseId(json: string): string | undefined {
  try {
    const id: unknown = JSON.parse(json)
    return typeof id === 'string' ? id : undefined
  } catch {
    return undefined
  }
}
