/**
 * The pauses of the runner's pollers: each poller that finds nothing waits
 * twice as long as the last time (from `minMs` up to `maxMs`), so an idle
 * pipeline costs a few requests a second instead of hundreds; while work is
 * running (`working()`) nobody backs off, and `wake()` (an HTTP request, a
 * finished invocation, a poller that found work) cuts every pause short and
 * starts each poller again from `minMs`, so a turn moves as fast as before.
 */
export interface IdleWaits {
  /** A poller's pause: `poller` names its own backoff. */
  pause(poller: string): Promise<void>
  /** The poller found work: its next pause starts from `minMs` again. */
  found(poller: string): void
  /** Something happened that may have made work: every poller looks now. */
  wake(): void
  /** Ends every pause (for stop()). */
  close(): void
}

export function idleWaits({
  minMs,
  maxMs,
  working = () => false,
}: {
  minMs: number
  maxMs: number
  /** While true (an invocation is running and may append at any moment) nobody backs off. */
  working?: () => boolean
}): IdleWaits {
  const delays = new Map<string, number>()
  const sleepers = new Set<() => void>()
  let closed = false
  const wakeAll = (): void => {
    for (const poller of delays.keys()) delays.set(poller, minMs)
    for (const done of sleepers) done()
    sleepers.clear()
  }
  return {
    pause(poller) {
      if (closed) return Promise.resolve()
      const delay = working() ? minMs : (delays.get(poller) ?? minMs)
      delays.set(poller, Math.min(delay * 2, maxMs))
      return new Promise((resolve) => {
        const done = (): void => {
          clearTimeout(timer)
          sleepers.delete(done)
          resolve()
        }
        const timer = setTimeout(done, delay)
        sleepers.add(done)
      })
    },
    found(poller) {
      delays.set(poller, minMs)
    },
    wake: wakeAll,
    close() {
      closed = true
      wakeAll()
    },
  }
}
