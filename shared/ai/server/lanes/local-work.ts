/**
 * The work this process runs under claims, so Stop and Pause now abort it
 * here at once (elsewhere the fence does: the worker's next renewal or write
 * fails). Keyed by session and claim.
 */
export interface LocalWork {
  /** Registers running work; the returned function unregisters it. */
  register(sessionId: string, claimKey: string, controller: AbortController): () => void
  abort(sessionId: string, claimKey: string, reason: string): void
  /** Aborts all of a session's work (it is being erased). */
  abortSession(sessionId: string, reason: string): void
  /** Aborts everything (the agent closes). */
  abortAll(reason: string): void
}

export function localWork(): LocalWork {
  const running = new Map<string, AbortController>()
  const keyOf = (sessionId: string, claimKey: string) => `${sessionId}\u0000${claimKey}`
  return {
    register(sessionId, claimKey, controller) {
      const key = keyOf(sessionId, claimKey)
      running.set(key, controller)
      return () => {
        if (running.get(key) === controller) running.delete(key)
      }
    },
    abort(sessionId, claimKey, reason) {
      running.get(keyOf(sessionId, claimKey))?.abort(new Error(reason))
    },
    abortSession(sessionId, reason) {
      for (const [key, controller] of running) {
        if (key.startsWith(keyOf(sessionId, ''))) controller.abort(new Error(reason))
      }
    },
    abortAll(reason) {
      for (const controller of running.values()) controller.abort(new Error(reason))
    },
  }
}
