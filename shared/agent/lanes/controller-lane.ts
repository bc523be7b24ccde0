import { claimKeyOfLife } from '../../log/claim-key.ts'
import { hasA2Code } from '../../log/error-brand.ts'
import { controllerRounds } from '../../model/controller/controller-rounds.ts'
import {
  type ClaimReading,
  pauseSettlement,
  pausingClaimKeys,
} from '../../model/controller/pause-settlement.ts'
import type { AIState } from '../../model/state/ai-state.ts'
import type { ControllerLanePorts } from './lane-ports.ts'

/** Runs before the lane gives up and lets its wake-up be retried. */
const MAX_RUNS = 200

/**
 * The controller lane: the controller's I/O (its wake-ups and queue keep
 * their wire name, `admission`, so deployed queues and stored wake-ups still
 * reach it). Each run reads the session's
 * state, settles Pause now's calls when no command waits (it reads their
 * claims: `settlePausedTools`), takes the controller's rounds
 * (`controllerRounds`: it decides commands and revokes claims), revokes the
 * claims of the work they end, and appends them in one batch at the index
 * it read; then it looks again, until a run finds nothing to do. Losing the
 * append's race to another writer costs one more run. What it appends
 * leaves the controller nothing to do, so it wakes no admission.
 *
 * The decisions go without ID guards (on DynamoDB 2 write units an event
 * less): the index it read is their guard. A decision is the fold of the
 * log up to that index, so a repeat (another process's run, or this one's
 * after an unknown outcome) either finds its events there (a replay) or
 * reads a state that already holds them, and decides the next thing.
 */
export async function runControllerLane(
  lane: ControllerLanePorts,
  sessionId: string,
): Promise<void> {
  for (let run = 0; run < MAX_RUNS; run++) {
    const { state, index, life } = await lane.state(sessionId)
    if (
      Object.keys(state.ai.requests).length === 0 &&
      (await settlePausedTools(lane, sessionId, state.ai, life))
    )
      continue
    const rounds = controllerRounds(state.ai, lane.config.controller, {
      decides: true,
      revokes: true,
      passesPausing: true,
    })
    if (rounds.stop === 'unsettled') break
    if (rounds.events.length === 0) return
    for (const key of rounds.revoke) {
      await lane.claims.revoke(sessionId, key, life)
      lane.work.abort(sessionId, claimKeyOfLife(key, life), 'revoked')
    }
    try {
      await lane.append(sessionId, rounds.events, { at: index, life })
    } catch (error) {
      if (!hasA2Code(error, 'APPEND_CONFLICT')) throw error
    }
  }
  throw new Error(`The controller of session "${sessionId}" did not settle after ${MAX_RUNS} runs`)
}

/**
 * Pause now's tool work: the controller's settlement plan
 * (controller/pause-settlement.ts) over the calls' claims as read now,
 * carried out: workers stopped, settle timers set, calls that no worker can
 * be running recorded. Returns whether it recorded anything.
 */
async function settlePausedTools(
  lane: ControllerLanePorts,
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
