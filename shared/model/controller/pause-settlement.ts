import type { UIMessage } from 'ai'
import type { AIEventInput } from '../events/ai-events.ts'
import { toolClaimKey } from '../ids/claim-keys.ts'
import { derivedId } from '../ids/ids.ts'
import type { AIState, ToolRecord } from '../state/ai-state.ts'
import { pausingToolCalls, toolInterrupted } from './settle-work.ts'

// Pause now stops tool work that is under way, and the turn stays `pausing`
// until that work has settled: until no worker can still be running it.
// Three writers may record the same fact, the call's `ai.tool.interrupted`,
// each alone and with the same ID, so the later ones are replays:
//   - the admission lane, when the plan below finds no worker can be running
//     the call (never taken, or its claim ran out after the pause's deadline);
//   - the call's worker, once the tool has returned after its abort
//     (`cutShortAcknowledgement`);
//   - a timer one claim TTL after the pause, for a worker that died or ignores
//     its signal (set by the plan, fired by the scheduler).

/** A claim as the plan reads it: when it runs out, if anybody holds it. */
export type ClaimReading = { expiresAt: number } | undefined

/** A settle timer: fires the call's interruption when no worker can be left. */
interface SettleTimer {
  name: string
  at: number
  events: AIEventInput<UIMessage>[]
}

/** What the admission lane does about a pausing turn's running calls, in this order. */
export interface PauseSettlementPlan {
  /** Claims to revoke, and the local work under them to abort: their workers stop. */
  revoke: string[]
  /** Timers that settle calls whose workers may still run (idempotent by name). */
  timers: SettleTimer[]
  /** Calls no worker can be running any more: recorded now. */
  settle: AIEventInput<UIMessage>[]
}

/** The claims the plan needs to read: one per running call of a pausing turn. */
export function pausingClaimKeys(state: AIState): string[] {
  return pausingToolCalls(state).map(toolClaimKey)
}

/**
 * Pause now's settlement of running calls, decided from the state and the
 * calls' claims as read now (`claims`, by `toolClaimKey`):
 * - a call nobody ever claimed runs nowhere: settled;
 * - a call whose claim has run out, once the pause's deadline (one claim TTL
 *   after it began) has passed, runs nowhere either: settled;
 * - otherwise its worker may be running: a settle timer at the deadline, and
 *   while the claim is live it is revoked, so the worker's renewals and
 *   writes fail and it aborts.
 */
export function pauseSettlement(
  state: AIState,
  claims: ReadonlyMap<string, ClaimReading>,
  { now, claimTtlMs }: { now: number; claimTtlMs: number },
): PauseSettlementPlan {
  const plan: PauseSettlementPlan = { revoke: [], timers: [], settle: [] }
  const active = state.active
  const cause = active?.pausedBy
  if (active?.phase !== 'pausing' || cause === undefined) return plan
  const deadline = (active.pausingSince ?? 0) + claimTtlMs
  for (const tool of pausingToolCalls(state)) {
    const key = toolClaimKey(tool)
    const claim = claims.get(key)
    const live = claim !== undefined && claim.expiresAt > now
    if (claim === undefined || (!live && now >= deadline)) {
      plan.settle.push(toolInterrupted(tool, cause))
      continue
    }
    plan.timers.push({
      name: derivedId('settle', tool.generationId, tool.toolCallId, cause),
      at: deadline,
      events: [toolInterrupted(tool, cause)],
    })
    if (live) plan.revoke.push(key)
  }
  return plan
}

/**
 * A worker whose call was cut short acknowledges it once the tool has
 * returned: while the call's turn is pausing, the call is settled. Nothing
 * to record otherwise (a Stop ended the turn, or the call settled already).
 */
export function cutShortAcknowledgement(
  state: AIState,
  call: Pick<ToolRecord, 'toolCallId' | 'generationId'>,
): AIEventInput<UIMessage> | undefined {
  const active = state.active
  const tool = state.tools.find(
    (candidate) =>
      candidate.toolCallId === call.toolCallId && candidate.generationId === call.generationId,
  )
  if (
    active?.phase !== 'pausing' ||
    active.pausedBy === undefined ||
    tool?.status !== 'running' ||
    tool.turnId !== active.turnId
  )
    return undefined
  return toolInterrupted(tool, active.pausedBy)
}
