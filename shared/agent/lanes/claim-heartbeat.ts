import { hasA2Code } from '../../log/error-brand.ts'
import type { Claim } from '../../log/event-store.ts'
import { GLOBAL_TIMERS, type Timers } from '../../timing/timers.ts'
import type { Claims } from './lane-ports.ts'

/**
 * Keeps a claim alive while its work runs, renewing it `everyMs` (a third
 * of its TTL). When a renewal is refused (Stop or Pause now revoked the
 * claim, or a newer attempt took over after an outage) it aborts the work,
 * so a revoked model call or tool stops on any host, not only the one that
 * revoked it.
 */
export function claimHeartbeat(
  claims: Pick<Claims, 'renew'>,
  sessionId: string,
  claim: Claim,
  {
    everyMs,
    controller,
    timers = GLOBAL_TIMERS,
  }: { everyMs: number; controller: AbortController; timers?: Timers },
): () => void {
  let current = claim
  const timer = timers.setInterval(() => {
    claims.renew(sessionId, current).then(
      (renewed) => {
        current = renewed
      },
      (error: unknown) => {
        if (hasA2Code(error, 'FENCED_OUT')) controller.abort(new Error('superseded'))
      },
    )
  }, everyMs)
  const stop = (): void => timers.clearInterval(timer)
  // Aborted work is over (and a closed process renews nothing).
  controller.signal.addEventListener('abort', stop, { once: true })
  return stop
}
