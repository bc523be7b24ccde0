import { hasA2Code } from '../../../log/error-brand.ts'
import type { Claim, EventStore } from '../../../log/event-store.ts'
import type { RunOutcome } from '../../../runtime/wake-up.ts'

/**
 * Takes a piece of work's claim, or says who has it: a live attempt elsewhere
 * holds the work until its claim expires (the store's `ClaimHeldError`), which
 * the lane returns as its run's outcome rather than a failure.
 */
export async function takeClaim(
  store: Pick<EventStore, 'claim'>,
  sessionId: string,
  key: string,
  ttlMs: number,
): Promise<Claim | Extract<RunOutcome, { kind: 'held' }>> {
  try {
    return await store.claim(sessionId, key, { ttlMs })
  } catch (error) {
    if (!hasA2Code(error, 'CLAIM_HELD')) throw error
    return { kind: 'held', retryAt: (error as unknown as { retryAt: number }).retryAt }
  }
}

/** Whether `takeClaim` found the work held. */
export const isHeld = (taken: Claim | RunOutcome): taken is Extract<RunOutcome, { kind: 'held' }> =>
  'kind' in taken && taken.kind === 'held'
