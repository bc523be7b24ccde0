import type { UIMessageChunk } from 'ai'

export interface ProgressBatching {
  /** How long later chunks wait for company (default 50 ms). */
  windowMs: number
  /** Flush once this many chunks wait (default 200). */
  maxChunks: number
  /** Flush once the waiting chunks reach this many bytes of JSON (default 64 KiB). */
  maxBytes: number
}

export const DEFAULT_PROGRESS_BATCHING: ProgressBatching = {
  windowMs: 50,
  maxChunks: 200,
  maxBytes: 64 * 1024,
}

/**
 * Turns a stream of chunks into few appends: the first chunk is written at
 * once (time to first token matters most), later ones wait up to `windowMs`
 * for company, or go when the batch is full. Writes run one at a time and in
 * order; chunks arriving during a write join the next batch.
 */
export function progressBatcher(
  write: (chunks: UIMessageChunk[]) => Promise<void>,
  options: Partial<ProgressBatching> = {},
): {
  push(chunk: UIMessageChunk): void
  /**
   * Waits for the writes under way and hands back the chunks still waiting,
   * so the caller can write them with its own events in one append.
   */
  drain(): Promise<UIMessageChunk[]>
  close(): Promise<void>
} {
  const { windowMs, maxChunks, maxBytes } = { ...DEFAULT_PROGRESS_BATCHING, ...options }
  let waiting: UIMessageChunk[] = []
  let waitingBytes = 0
  let first = true
  let timer: ReturnType<typeof setTimeout> | undefined
  let writing: Promise<void> = Promise.resolve()
  let failure: unknown

  function flush(): void {
    clearTimeout(timer)
    timer = undefined
    if (waiting.length === 0) return
    const batch = waiting
    waiting = []
    waitingBytes = 0
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
      if (first || waiting.length >= maxChunks || waitingBytes >= maxBytes) {
        first = false
        flush()
      } else {
        timer ??= setTimeout(flush, windowMs)
      }
    },
    async drain() {
      clearTimeout(timer)
      timer = undefined
      await writing
      if (failure !== undefined) throw failure
      const batch = waiting
      waiting = []
      waitingBytes = 0
      return batch
    },
    async close() {
      flush()
      await writing
      if (failure !== undefined) throw failure
    },
  }
}
