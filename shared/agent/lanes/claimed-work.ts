import { hasA2Code } from '../../log/error-brand.ts'
import type { Claim } from '../../log/event-store.ts'
import { claimHeartbeat } from './claim-heartbeat.ts'
import type { ClaimedWorkPorts } from './lane-ports.ts'

/** Claimed work that was stopped or superseded before it finished. */
export const CUT_SHORT = Symbol('cut short')

/**
 * Runs work under a claim this worker holds: renews the claim while the work
 * runs, lets a local revocation abort it at once, and sorts out how it ended.
 * Fenced out or aborted (Stop, Pause now, a newer attempt), or its life of
 * the session ended (an erase): over, quietly, answering `CUT_SHORT`
 * instead of the work's value. Any other failure is
 * A2's own (the store, say). Either way the work's signal aborts (a model
 * call still streaming ends with it). After a failure the claim is given
 * back so a retry may run the work again (unless `giveBack` says no: the
 * claim then runs out, and the next attempt finds it expired), and the
 * error propagates.
 */
export async function runClaimedWork<T>(
  lane: ClaimedWorkPorts,
  sessionId: string,
  claim: Claim,
  work: (signal: AbortSignal) => Promise<T>,
  { giveBack = () => true }: { giveBack?: () => boolean } = {},
): Promise<T | typeof CUT_SHORT> {
  const controller = new AbortController()
  const unregister = lane.work.register(sessionId, claim.key, controller)
  const stopHeartbeat = claimHeartbeat(lane.claims, sessionId, claim, {
    everyMs: Math.max(50, Math.floor(lane.config.claimTtlMs / 3)),
    controller,
    timers: lane.config.timers,
  })
  try {
    return await work(controller.signal)
  } catch (error) {
    // What the work started (a model call's stream) ends with it, not in the
    // background: fenced out by a newer attempt, or failed.
    const aborted = controller.signal.aborted
    controller.abort(error)
    if (hasA2Code(error, 'FENCED_OUT') || hasA2Code(error, 'LIFE_ENDED') || aborted)
      return CUT_SHORT
    if (giveBack()) await lane.claims.release(sessionId, claim).catch(() => undefined)
    throw error
  } finally {
    stopHeartbeat()
    unregister()
  }
}
