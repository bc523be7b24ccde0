import { createParser } from 'eventsource-parser'
import type { StoredEvent } from '../log/event.ts'
import { backoff } from '../timing/backoff.ts'
import { GLOBAL_TIMERS, type Timers } from '../timing/timers.ts'
import { type BackoffOptions, CLIENT_RETRY_POLICY, clientBackoff } from './backoff.ts'
import { type AgentClientError, errorFromResponse, networkError } from './client-error.ts'
import { type Endpoint, resolveHeaders, sessionUrl } from './endpoint.ts'

/**
 * The SSE subscription's state: `connecting` before the first answer,
 * `open` while it follows the log (over a stream, or between streams after
 * the server ended one for quiet, by checking the head), `reconnecting`
 * while it waits to resume after a drop, `failed` when the server refused it
 * for good (a 4xx such as 403).
 */
export type ConnectionStatus = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'failed'

export interface SseSubscriptionOptions {
  endpoint: Endpoint
  sessionId: string
  /** The index of the last event applied; every (re)connect resumes after it. */
  lastIndex(): number
  /** The ID of the event at `lastIndex()`, when known: checked against the server's `: after` marker. */
  lastId?(): string | undefined
  /** The life of the event at `lastIndex()`, when known: checked against the server's `: life` marker. */
  lastLife?(): string | undefined
  /**
   * The server's log is not the one the applied events came from: its head
   * is below `lastIndex()`, or its event there has another ID or another
   * life (a memory store after a restart, a session erased and started over). The consumer drops what it
   * applied, so `lastIndex()` is 0, and the stream reads again from the start.
   */
  onRewind?(): void
  /** Receives events in log order, each exactly the next index: never twice, never a gap. */
  onEvents(events: StoredEvent[]): void
  onStatus(status: ConnectionStatus, error: AgentClientError | null): void
  /**
   * The log's index when this connection opened (the server's `: head N`),
   * or as a head check found it; `undefined` when a new stream opens after
   * a quiet end, until it says.
   */
  onHead?(index: number | undefined): void
  /**
   * After the server ended the stream for quiet: whether news is expected
   * (a turn at work, this client's pushes in flight), so the stream opens
   * again at once. Otherwise the subscription rests, checking the head.
   */
  expectsNews?(): boolean
  /** How often a resting subscription checks the head while the page is visible (default 8 s). */
  idleCheckMs?: number
  backoff?: BackoffOptions
  /**
   * The clock seam (default: the global timers, `Date.now`, `Math.random`
   * for the backoff's jitter): a simulator runs the subscription on
   * simulated time, reproducibly (`simulate()` in `a2-aws/test`).
   */
  clock?: { timers?: Timers; now?: () => number; random?: () => number }
}

export interface SseSubscription {
  /** Opens the stream now if it is resting (a send, the page shown or focused, a new listener). */
  wake(): void
  close(): void
}

/**
 * Head checks while resting, visible page: one every 8 s keeps news within
 * 10 s of reaching a page (8 s, plus a check and a stream opening) for
 * about $0.0017 an hour on AWS (docs/benchmarks.md, the idle tab).
 */
export const DEFAULT_IDLE_CHECK_MS = 8_000
/**
 * Head checks while the page is hidden: it opens the stream as soon as it is shown.
 * @internal Exported for its test and the benchmarks (knip --production).
 */
export const HIDDEN_CHECK_MS = 60_000
/** A stream that ended for quiet sooner than this after it opened is not reopened sooner. */
const MIN_STREAM_MS = 250

interface Attempt {
  /** Events or heartbeats arrived, so the connection was healthy: reset the backoff. */
  progress: boolean
  /** The server holds another log: read it from the start, at once. */
  rewound: boolean
  /** The server ended the stream because the session was quiet (`: quiet`). */
  quiet: boolean
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
 * When the server ends the stream because the session was quiet, it opens
 * the next one at once if news is expected (`expectsNews`); otherwise it
 * rests: no stream, a cheap head check (`?head`) every `idleCheckMs`, and
 * a new stream when the head moved, on `wake()`, or when the page is shown
 * or focused. The status stays `open` throughout.
 *
 * @example
 * const stream = openSseSubscription({ endpoint, sessionId: 's1', lastIndex: () => index, onEvents: apply, onStatus: show })
 * stream.close()
 */
export function openSseSubscription(options: SseSubscriptionOptions): SseSubscription {
  const timers = options.clock?.timers ?? GLOBAL_TIMERS
  const now = options.clock?.now ?? Date.now
  const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve()
      const timer = timers.setTimeout(done, ms)
      signal.addEventListener('abort', done, { once: true })
      function done(): void {
        timers.clearTimeout(timer)
        signal.removeEventListener('abort', done)
        resolve()
      }
    })
  const closed = new AbortController()
  let retryHint: number | undefined
  /** Resolves the rest in progress, if any. */
  let wakeRest: (() => void) | undefined
  const page = browserPage()
  const onShown = (): void => {
    if (!page?.hidden()) wakeRest?.()
  }
  page?.listen(onShown)

  /** Rests after a quiet end until there is news, a wake-up or a failed check. */
  async function rest(): Promise<void> {
    const interval = options.idleCheckMs ?? DEFAULT_IDLE_CHECK_MS
    while (!closed.signal.aborted) {
      const wait = page?.hidden() ? Math.max(interval, HIDDEN_CHECK_MS) : interval
      const woken = await new Promise<boolean>((resolve) => {
        const timer = timers.setTimeout(() => done(false), wait)
        const onClose = (): void => done(false)
        closed.signal.addEventListener('abort', onClose, { once: true })
        wakeRest = () => done(true)
        function done(byWake: boolean): void {
          timers.clearTimeout(timer)
          closed.signal.removeEventListener('abort', onClose)
          wakeRest = undefined
          resolve(byWake)
        }
      })
      if (closed.signal.aborted || woken) return
      const checked = await checkHead(options, closed.signal)
      if (closed.signal.aborted) return
      // A failed check is the stream's to report (and back off from).
      if (checked === undefined) return
      const { head, life } = checked
      const applied = options.lastIndex()
      // As many events of another life (erased and started over): the stream finds it.
      const known = options.lastLife?.()
      const sameLog = life === undefined || known === undefined || life === known
      if (head === applied && sameLog) {
        options.onHead?.(head)
        continue
      }
      if (head === applied) return
      // Behind: not caught up until the stream delivers. Below: another log, which the stream finds.
      if (head > applied) options.onHead?.(head)
      return
    }
  }

  void (async () => {
    let attempt = 0
    let error: AgentClientError | null = null
    /** The stream reopens after a quiet end: still `open` as far as the consumer knows. */
    let resuming = false
    while (!closed.signal.aborted) {
      if (resuming) options.onHead?.(undefined)
      else options.onStatus(attempt === 0 && error === null ? 'connecting' : 'reconnecting', error)
      const openedAt = now()
      const result = await readOnce(options, closed.signal, (ms) => {
        retryHint = ms
      })
      if (closed.signal.aborted) return
      if (result.rewound) {
        options.onRewind?.()
        attempt = 0
        error = null
        resuming = false
        continue
      }
      if (result.quiet) {
        attempt = 0
        error = null
        resuming = true
        if (options.expectsNews?.()) {
          await sleep(Math.max(0, MIN_STREAM_MS - (now() - openedAt)), closed.signal)
        } else {
          await rest()
        }
        continue
      }
      resuming = false
      error = result.error
      if (result.fatal) {
        options.onStatus('failed', error)
        return
      }
      if (result.progress) attempt = 0
      const baseDelayMs =
        options.backoff?.baseDelayMs ?? retryHint ?? CLIENT_RETRY_POLICY.baseDelayMs
      options.onStatus('reconnecting', error)
      await sleep(
        backoff(
          attempt++,
          clientBackoff({ ...options.backoff, baseDelayMs }),
          options.clock?.random,
        ),
        closed.signal,
      )
    }
  })()
  return {
    wake: () => wakeRest?.(),
    close: () => {
      closed.abort()
      page?.unlisten(onShown)
      options.onStatus('idle', null)
    },
  }
}

/** The session's head and its life, by `?head`, or undefined when the check failed. */
async function checkHead(
  options: SseSubscriptionOptions,
  closed: AbortSignal,
): Promise<{ head: number; life?: string } | undefined> {
  try {
    const headers = await resolveHeaders(options.endpoint.headers)
    headers.set('accept', 'application/json')
    const url = `${sessionUrl(options.endpoint.api, options.sessionId)}&head`
    const response = await options.endpoint.fetch(url, { headers, signal: closed })
    const body = (await response.json().catch(() => undefined)) as
      | { head?: unknown; life?: unknown }
      | undefined
    const head = body?.head
    if (!response.ok || typeof head !== 'number' || !Number.isSafeInteger(head)) return undefined
    return typeof body?.life === 'string' ? { head, life: body.life } : { head }
  } catch {
    return undefined
  }
}

/** The page's visibility and focus, in a browser; undefined elsewhere (Node services). */
function browserPage():
  | { hidden(): boolean; listen(on: () => void): void; unlisten(on: () => void): void }
  | undefined {
  const scope = globalThis as {
    document?: Pick<Document, 'visibilityState' | 'addEventListener' | 'removeEventListener'>
    window?: Pick<Window, 'addEventListener' | 'removeEventListener'>
  }
  const { document, window } = scope
  if (!document || !window) return undefined
  return {
    hidden: () => document.visibilityState === 'hidden',
    listen(on) {
      document.addEventListener('visibilitychange', on)
      window.addEventListener('focus', on)
    },
    unlisten(on) {
      document.removeEventListener('visibilitychange', on)
      window.removeEventListener('focus', on)
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
  const attempt: Attempt = {
    progress: false,
    rewound: false,
    quiet: false,
    error: null,
    fatal: false,
  }
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
    let headSeen = false
    let received: StoredEvent[] = []
    const parser = createParser({
      onEvent: (message) => {
        received.push(JSON.parse(message.data) as StoredEvent)
      },
      onComment: (comment) => {
        attempt.progress = true
        if (attempt.rewound) return
        if (/^\s*quiet\s*$/.test(comment)) attempt.quiet = true
        const head = /^\s*head (\d+)\s*$/.exec(comment)
        if (head) {
          headSeen = true
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
        const life = /^\s*life (\d+) (.+)$/.exec(comment)
        if (life && options.onRewind && Number(life[1]) === options.lastIndex()) {
          const known = options.lastLife?.()
          const named = parseId(life[2] as string)
          if (known !== undefined && named !== undefined && named !== known) attempt.rewound = true
        }
      },
      // The `retry:` of a quiet end (after the head) is for plain EventSources.
      onRetry: (ms) => {
        if (!headSeen) onRetry(ms)
      },
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
