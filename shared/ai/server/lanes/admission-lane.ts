import { hasA2Code } from '../../../log/error-brand.ts'
import { admissionRound } from '../../controller/admission-round.ts'
import { pausingToolCalls, toolInterrupted } from '../../controller/settle-work.ts'
import type { AIState } from '../../state/ai-state.ts'
import type { AdmissionPorts } from './lane-ports.ts'
import { pausedToolSettled } from './tool-settling.ts'

/** Rounds before the lane gives up and lets its wake-up be retried. */
const MAX_ROUNDS = 200

/**
 * The admission lane: the controller's I/O. Each round reads the session's
 * state, takes the controller's decision (`admissionRound`), revokes the
 * claims of the work it ends, and appends it at the index it read. Losing
 * that race to another writer costs one more round.
 */
export async function runAdmissionLane(lane: AdmissionPorts, sessionId: string): Promise<void> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const { state, index } = await lane.state(sessionId)
    if (
      Object.keys(state.ai.requests).length === 0 &&
      (await settlePausedTools(lane, sessionId, state.ai))
    )
      continue
    const { events, revoke } = admissionRound(state.ai, lane.config.controller)
    if (events.length === 0) return
    for (const key of revoke) {
      await lane.claims.revoke(sessionId, key)
      lane.work.abort(sessionId, key, 'revoked')
    }
    try {
      await lane.append(sessionId, events, { expectedIndex: index })
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
 * Pause now's tool work: each running call of the pausing turn is stopped,
 * and settled here only when no worker can be running it (see
 * tool-settling.ts); a worker's own acknowledgement or its settle timer
 * settles the rest. Returns whether it recorded anything.
 */
async function settlePausedTools(
  lane: AdmissionPorts,
  sessionId: string,
  state: AIState,
): Promise<boolean> {
  let settled = false
  for (const tool of pausingToolCalls(state)) {
    if (!(await pausedToolSettled(lane, sessionId, state, tool))) continue
    await lane.append(sessionId, [toolInterrupted(tool, state.active?.pausedBy ?? 'paused')])
    settled = true
  }
  return settled
}
