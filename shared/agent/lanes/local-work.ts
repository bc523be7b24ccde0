import { generationClaimKey } from '../../model/ids/claim-keys.ts'

/**
 * The work this process runs under claims, so Stop and Pause now abort it
 * here at once (elsewhere the fence does: the worker's next renewal or write
 * fails). Keyed by session and claim.
 */
export interface LocalWork {
  /**
   * Registers running work; the returned function unregisters it. Work
   * already running here under the same claim is aborted: the caller took
   * the claim after it (a resume after another process's Pause now, a
   * takeover of this process's own frozen attempt), so it is over, and its
   * model call must not stream beside the new one until its next renewal.
   * So is any other model step of the session running here: a session runs
   * one at a time, and a newer one was decided after it (a resume after a
   * Pause now that another process decided, which this one hears of only
   * at its next renewal).
   */
  register(sessionId: string, claimKey: string, controller: AbortController): () => void
  abort(sessionId: string, claimKey: string, reason: string): void
  /** Aborts all of a session's work (it is being erased). */
  abortSession(sessionId: string, reason: string): void
  /** Aborts everything (the agent closes). */
  abortAll(reason: string): void
}

/** Model steps' claims (`generationClaimKey`): one runs at a time in a session. */
const GENERATION_PREFIX = generationClaimKey('')

export function localWork(): LocalWork {
  const running = new Map<string, AbortController>()
  const keyOf = (sessionId: string, claimKey: string) => `${sessionId}\u0000${claimKey}`
  return {
    register(sessionId, claimKey, controller) {
      const key = keyOf(sessionId, claimKey)
      running.get(key)?.abort(new Error('superseded by a newer attempt in this process'))
      if (claimKey.startsWith(GENERATION_PREFIX)) {
        for (const [other, holder] of running) {
          if (other.startsWith(keyOf(sessionId, GENERATION_PREFIX)))
            holder.abort(new Error('superseded by a newer model step in this process'))
        }
      }
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
