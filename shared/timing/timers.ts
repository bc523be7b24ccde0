/**
 * The timers the runtime's own in-process waits run on: claim renewals,
 * progress batching windows, the SSE stream's heartbeat and quiet end (and a
 * client's SSE subscription, given them). The default is the global ones; a simulator
 * passes its own, on simulated time, so a run is reproducible from a seed
 * (see `simulate()` in `a2-aws/test`).
 */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
  setInterval(callback: () => void, ms: number): unknown
  clearInterval(handle: unknown): void
}

/** The global timers. */
export const GLOBAL_TIMERS: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  setInterval: (callback, ms) => setInterval(callback, ms),
  clearInterval: (handle) => clearInterval(handle as ReturnType<typeof setInterval>),
}
