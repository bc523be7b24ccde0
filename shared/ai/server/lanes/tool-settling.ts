import { hasA2Code } from '../../../log/error-brand.ts'
import { toolClaimKey } from '../../controller/claim-keys.ts'
import { toolInterrupted } from '../../controller/settle-work.ts'
import { derivedId } from '../../ids.ts'
import type { AIState, ToolRecord } from '../../state/ai-state.ts'
import type { AdmissionPorts, LanePorts } from './lane-ports.ts'

// Pause now stops tool work that is under way, and the turn stays `pausing`
// until that work has settled. Three writers may record the same fact, the
// call's `ai.tool.interrupted`: its worker once the tool has returned after
// the abort, a timer one claim TTL after the pause (for a worker that died or
// ignores its signal), and the controller when no worker can be running.
// Each writes it alone, with the same ID, so the later ones are replays.

/**
 * For a running call of a pausing turn: whether it has settled, so the
 * controller records it now, or a worker may still run it. Then the worker is
 * stopped (its claim revoked, so its renewals and writes fail and it aborts)
 * and a timer settles the call by the time the worker's claim would have run
 * out, in case the worker never acknowledges.
 */
export async function pausedToolSettled(
  lane: Pick<AdmissionPorts, 'config' | 'claims' | 'timers' | 'work'>,
  sessionId: string,
  state: AIState,
  tool: ToolRecord,
): Promise<boolean> {
  const active = state.active
  const cause = active?.pausedBy
  if (active?.phase !== 'pausing' || cause === undefined) return true
  const key = toolClaimKey(tool)
  const claim = await lane.claims.read(sessionId, key)
  // Nobody ever took it: nothing runs.
  if (claim === undefined) return true
  const now = lane.config.now()
  const deadline = (active.pausingSince ?? 0) + lane.config.claimTtlMs
  const live = claim.expiresAt > now
  if (!live && now >= deadline) return true
  await lane.timers
    .schedule({
      sessionId,
      name: derivedId('settle', tool.generationId, tool.toolCallId, cause),
      at: deadline,
      events: [toolInterrupted(tool, cause)],
    })
    .catch((error: unknown) => {
      // Set already (at this deadline, or another for the same pause).
      if (!hasA2Code(error, 'TIMER_CONFLICT')) throw error
    })
  if (live) {
    await lane.claims.revoke(sessionId, key)
    lane.work.abort(sessionId, key, 'paused')
  }
  return false
}

/**
 * A worker whose call was cut short acknowledges it once the tool has
 * returned: while the call's turn is pausing, the call is settled.
 */
export async function acknowledgeCutShort(
  lane: Pick<LanePorts, 'state' | 'append'>,
  sessionId: string,
  record: ToolRecord,
): Promise<void> {
  const { state } = await lane.state(sessionId)
  const active = state.ai.active
  const tool = state.ai.tools.find(
    (candidate) =>
      candidate.toolCallId === record.toolCallId && candidate.generationId === record.generationId,
  )
  if (
    active?.phase !== 'pausing' ||
    active.pausedBy === undefined ||
    tool?.status !== 'running' ||
    tool.turnId !== active.turnId
  )
    return
  await lane.append(sessionId, [toolInterrupted(tool, active.pausedBy)])
}
