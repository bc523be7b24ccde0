import { claimKeyOfLife } from '../../../log/claim-key.ts'
import { hasA2Code } from '../../../log/error-brand.ts'
import { admissionRound } from '../../controller/admission-round.ts'
import {
  type ClaimReading,
  pauseSettlement,
  pausingClaimKeys,
} from '../../controller/pause-settlement.ts'
import type { AIState } from '../../state/ai-state.ts'
import type { AdmissionPorts } from './lane-ports.ts'

/** Rounds before the lane gives up and lets its wake-up be retried. */
const MAX_ROUNDS = 200

/**
 * The admission lane: the controller's I/O. Each round reads the session's
 * state, takes the controller's decision (`admissionRound`), revokes the
 * claims of the work it ends, and appends it at the index it read. Losing
 * that race to another writer costs one more round.
 *
 * The decision goes without ID guards (`guardIds: false`; on DynamoDB 2
 * write units an event less): the index it read is its guard. A decision
 * is the fold of the log up to that index, so a repeat (another process's
 * run, or this one's after an unknown outcome) either conflicts at the same
 * index or reads a state that already holds it, and decides the next thing.
 */
export async function runAdmissionLane(lane: AdmissionPorts, sessionId: string): Promise<void> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const { state, index, life } = await lane.state(sessionId)
    if (
      Object.keys(state.ai.requests).length === 0 &&
      (await settlePausedTools(lane, sessionId, state.ai, life))
    )
      continue
    const { events, revoke } = admissionRound(state.ai, lane.config.controller)
    if (events.length === 0) return
    for (const key of revoke) {
      await lane.claims.revoke(sessionId, key, life)
      lane.work.abort(sessionId, claimKeyOfLife(key, life), 'revoked')
    }
    try {
      await lane.append(sessionId, events, { at: index, life })
    } catch (error) {
      if (hasA2Code(error, 'APPEND_CONFLICT')) continue
      throw error
    }
  }
  throw new Error(
    `The controller of session "${sessionId}" did not settle after ${MAX_ROUNDS} rounds`,
  )
}

/**
 * Pause now's tool work: the controller's settlement plan
 * (controller/pause-settlement.ts) over the calls' claims as read now,
 * carried out: workers stopped, settle timers set, calls that no worker can
 * be running recorded. Returns whether it recorded anything.
 */
async function settlePausedTools(
  lane: AdmissionPorts,
  sessionId: string,
  state: AIState,
  life: string | undefined,
): Promise<boolean> {
  const keys = pausingClaimKeys(state)
  if (keys.length === 0) return false
  const claims = new Map<string, ClaimReading>()
  for (const key of keys) claims.set(key, await lane.claims.read(sessionId, key, life))
  const plan = pauseSettlement(state, claims, {
    now: lane.config.now(),
    claimTtlMs: lane.config.claimTtlMs,
  })
  for (const timer of plan.timers) {
    await lane.timers.schedule({ sessionId, ...timer }, life).catch((error: unknown) => {
      // Set already (at this deadline, or another for the same pause).
      if (!hasA2Code(error, 'TIMER_CONFLICT')) throw error
    })
  }
  for (const key of plan.revoke) {
    await lane.claims.revoke(sessionId, key, life)
    lane.work.abort(sessionId, claimKeyOfLife(key, life), 'paused')
  }
  if (plan.settle.length === 0) return false
  await lane.append(sessionId, plan.settle, { at: 'end', life })
  return true
}
