import { VISIBILITY_LEASE, type VisibilityLease } from '../../../shared/aws/pipeline-functions.ts'

// How soon `npm run local` takes over the work a runner that stopped
// mid-turn left (a developer's Ctrl-C and restart against a kept endpoint).
// Deployed, a dead invocation's claim holds its work for the agent's claim
// TTL (30 s) and its messages stay invisible for their lease (30 s): a page
// on a turn then sits on its last chunk for up to half a minute. Locally the
// restarts are the planned kind and moto is close, so both last 10 s: a
// claim is still renewed three times in its life (every 3.3 s) and a lease
// every 3 s, so a live runner loses neither to a slow moto, and a takeover
// comes within about 10 s. Safe either way: a claim fences its holder's
// writes, so one that lapses under a live worker costs a repeated step,
// never a wrong log.

/** The example agent's claim TTL under the runner (`A2_CLAIM_TTL_MS`, unless set). */
export const LOCAL_CLAIM_TTL_MS = 10_000

/** The queue handlers' lease under the runner: as long as the claim, renewed every 3 s. */
export const LOCAL_LEASE: VisibilityLease = {
  seconds: 10,
  renewEverySeconds: 3,
  retry: VISIBILITY_LEASE.retry,
}
