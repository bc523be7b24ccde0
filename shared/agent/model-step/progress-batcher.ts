import type { UIMessageChunk } from 'ai'
import { GLOBAL_TIMERS, type Timers } from '../../timing/timers.ts'

export interface ProgressBatching {
  /** The window after the first content chunk's write (default 50 ms); each later one doubles. */
  windowMs: number
  /** The longest window (default 250 ms): no chunk waits longer for company. */
  maxWindowMs: number
  /** Write once this many chunks wait (default 64). */
  maxChunks: number
  /** Write once the waiting chunks reach this many bytes of JSON (default 64 KiB). */
  maxBytes: number
}

/**
 * Chosen together against four targets (docs/runtime.md, "Streaming cost";
 * the figures in docs/benchmarks.md): the first token reaches the log at
 * once; a 50 tokens/s answer costs at most 100 appends per 1,000 chunks and a
 * 200 tokens/s one at most 50; a chunk waits 150 ms at the median. Windows
 * that grow (50, 100, 200, then 250 ms) keep the start of an answer lively
 * and make the number of appends follow the answer's length at a rate of
 * about four a second, not twenty.
 */
const DEFAULT_PROGRESS_BATCHING: ProgressBatching = {
  windowMs: 50,
  maxWindowMs: 250,
  maxChunks: 64,
  maxBytes: 64 * 1024,
}

/**
 * Chunks that only open something (the message, a step, a part): they show
 * nothing yet, so they wait for the first chunk that does instead of taking
 * the "first chunk at once" write for themselves.
 */
const OPENING_CHUNKS = new Set(['start', 'start-step', 'text-start', 'reasoning-start'])

/** A chunk that shows something: the batcher writes the first at once, and time to first token ends at it. */
export function showsContent(chunk: UIMessageChunk): boolean {
  return !OPENING_CHUNKS.has(chunk.type)
}

/**
 * Turns a stream of chunks into few appends. The first content chunk (with
 * the opening chunks before it) is written at once, since time to first token
 * matters most; later chunks wait for company, for a window that starts at
 * `windowMs` and doubles after each write up to `maxWindowMs`, or until
 * `maxChunks` or `maxBytes` collect. Consecutive deltas of one part are
 * written as one (`coalesceDeltas`). Writes run one at a time and in order;
 * chunks arriving during a write join the next batch.
 */
export function progressBatcher(
  write: (chunks: UIMessageChunk[]) => Promise<void>,
  options: Partial<ProgressBatching> = {},
  timers: Timers = GLOBAL_TIMERS,
): {
  push(chunk: UIMessageChunk): void
  /**
   * Waits for the writes under way and hands back the chunks still waiting,
   * so the caller can write them with its own events in one append.
   */
  drain(): Promise<UIMessageChunk[]>
  /** Writes the chunks still waiting and waits for every write: the stream has ended. */
  writeRemaining(): Promise<void>
} {
  const { windowMs, maxWindowMs, maxChunks, maxBytes } = {
    ...DEFAULT_PROGRESS_BATCHING,
    ...options,
  }
  let waiting: UIMessageChunk[] = []
  let waitingBytes = 0
  let contentSeen = false
  let window = windowMs
  let timer: unknown
  let writing: Promise<void> = Promise.resolve()
  let failure: unknown

  function take(): UIMessageChunk[] {
    timers.clearTimeout(timer)
    timer = undefined
    const batch = coalesceDeltas(waiting)
    waiting = []
    waitingBytes = 0
    return batch
  }

  function flush(): void {
    const batch = take()
    if (batch.length === 0) return
    writing = writing
      .then(() => (failure === undefined ? write(batch) : undefined))
      .catch((error: unknown) => {
        failure ??= error
      })
  }

  return {
    push(chunk) {
      if (failure !== undefined) throw failure
      waiting.push(chunk)
      waitingBytes += JSON.stringify(chunk).length
      if (!contentSeen) {
        if (!showsContent(chunk)) return
        contentSeen = true
        return flush()
      }
      if (waiting.length >= maxChunks || waitingBytes >= maxBytes) return flush()
      if (timer === undefined) {
        timer = timers.setTimeout(flush, window)
        window = Math.min(maxWindowMs, window * 2)
      }
    },
    async drain() {
      timers.clearTimeout(timer)
      timer = undefined
      await writing
      if (failure !== undefined) throw failure
      return take()
    },
    async writeRemaining() {
      flush()
      await writing
      if (failure !== undefined) throw failure
    },
  }
}

type Delta = Extract<
  UIMessageChunk,
  { type: 'text-delta' | 'reasoning-delta' | 'tool-input-delta' }
>

/**
 * Consecutive deltas of one part as one delta: what any reader of the
 * stream (the AI SDK's `readUIMessageStream`, A2's fold) makes of them is the
 * same, and a batch of tokens stores as one short chunk instead of dozens of
 * objects. Deltas that carry provider metadata stay as they are.
 * @internal Exported for its test (knip --production).
 */
export function coalesceDeltas(chunks: readonly UIMessageChunk[]): UIMessageChunk[] {
  const out: UIMessageChunk[] = []
  for (const chunk of chunks) {
    const last = out.at(-1)
    if (last && mergeable(last, chunk)) {
      out[out.length - 1] = merged(last as Delta, chunk as Delta)
    } else out.push(chunk)
  }
  return out
}

function mergeable(a: UIMessageChunk, b: UIMessageChunk): boolean {
  if (a.type !== b.type || 'providerMetadata' in a || 'providerMetadata' in b) return false
  if (a.type === 'text-delta' || a.type === 'reasoning-delta') {
    return a.id === (b as typeof a).id
  }
  if (a.type === 'tool-input-delta') return a.toolCallId === (b as typeof a).toolCallId
  return false
}

function merged(a: Delta, b: Delta): Delta {
  if (a.type === 'tool-input-delta' && b.type === 'tool-input-delta') {
    return { ...a, inputTextDelta: a.inputTextDelta + b.inputTextDelta }
  }
  return { ...a, delta: (a as { delta: string }).delta + (b as { delta: string }).delta } as Delta
}
