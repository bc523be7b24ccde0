import { hasA2Code } from '../../../log/error-brand.ts'
import type { Claim } from '../../../log/event-store.ts'
import { claimHeartbeat } from './claim-heartbeat.ts'
import type { LaneContext } from './lane-context.ts'

/**
 * Runs work under a claim this worker holds: renews the claim while the work
 * runs, lets a local revocation abort it at once, and sorts out how it ended.
 * Fenced out or aborted (Stop, Pause now, a newer attempt): over, quietly.
 * Any other failure is A2's own (the store, say). Either way the work's
 * signal aborts (a model call still streaming ends with it). After a failure
 * the claim is given back so a retry may run the work again (unless
 * `giveBack` says no: the claim then runs out, and the next attempt finds it
 * expired), and the error propagates.
 */
export async function runClaimedWork(
  lane: LaneContext,
  sessionId: string,
  claim: Claim,
  work: (signal: AbortSignal) => Promise<void>,
  { giveBack = () => true }: { giveBack?: () => boolean } = {},
): Promise<void> {
  const controller = new AbortController()
  const unregister = lane.work.register(sessionId, claim.key, controller)
  const stopHeartbeat = claimHeartbeat(
    lane.store,
    sessionId,
    claim,
    lane.config.claimTtlMs,
    controller,
    lane.config.timers,
  )
  try {
    await work(controller.signal)
  } catch (error) {
    // What the work started (a model call's stream) ends with it, not in the
    // background: fenced out by a newer attempt, or failed.
    const aborted = controller.signal.aborted
    controller.abort(error)
    if (hasA2Code(error, 'FENCED_OUT') || aborted) return
    if (giveBack()) await lane.store.releaseClaim(sessionId, claim).catch(() => undefined)
    throw error
  } finally {
    stopHeartbeat()
    unregister()
  }
}
