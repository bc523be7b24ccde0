import type { UIMessage } from 'ai'
import { AppendConflictError } from '../../../log/errors.ts'
import { advance } from '../../controller/advance.ts'
import { decide } from '../../controller/decide.ts'
import { foldDraft } from '../../controller/draft-fold.ts'
import { isCurrentGeneration, workToAbort } from '../../controller/due-work.ts'
import type { AIEventInput } from '../../events/ai-events.ts'
import type { ControlRequest } from '../../events/control.ts'
import { derivedId } from '../../ids.ts'
import type { AIState } from '../../state/ai-state.ts'
import { generationClaimKey } from './generation-lane.ts'
import type { LaneContext } from './lane-context.ts'
import { toolClaimKey } from './tool-claim-key.ts'
import { pausedToolSettled, toolInterrupted } from './tool-settling.ts'

/** Rounds before the lane gives up and lets its wake-up be retried. */
const MAX_ROUNDS = 200

/**
 * The admission lane: the controller. Each round reads the session's state,
 * decides the oldest undecided command (or, with none, what the durable
 * facts make due: the next step, the end of a response, admission of the next
 * input, the settling of aborted work), and appends the result at the index
 * it read, so every decision is made against the log as it stands. Losing
 * that race to another writer costs one more round.
 */
export async function runAdmissionLane(lane: LaneContext, sessionId: string): Promise<void> {
  const maxSteps = lane.options.harness?.maxSteps
  const advanceOptions = maxSteps === undefined ? {} : { maxSteps }
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const { state: snapshot, index } = await lane.state(sessionId)
    const state = snapshot.ai
    const commandId = Object.keys(state.requests)[0]
    if (commandId === undefined && (await settlePausedTools(lane, sessionId, state))) continue
    const events =
      commandId === undefined
        ? [...settleAbortedWork(state), ...advance(state, advanceOptions)]
        : decide(
            state,
            {
              id: commandId,
              type: 'ai.control.requested',
              payload: state.requests[commandId] as ControlRequest<UIMessage>,
              sessionId,
              index,
              timestamp: Date.now(),
            },
            advanceOptions,
          ).events
    if (events.length === 0) return
    await revokeWorkEndedBy(lane, sessionId, state, events)
    try {
      await lane.appendAsA2(sessionId, events, { expectedIndex: index })
    } catch (error) {
      if (error instanceof AppendConflictError) continue
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
  lane: LaneContext,
  sessionId: string,
  state: AIState,
): Promise<boolean> {
  const active = state.active
  if (active?.phase !== 'pausing') return false
  let settled = false
  for (const tool of workToAbort(state).tools) {
    if (tool.status !== 'running' || tool.turnId !== active.turnId) continue
    if (!(await pausedToolSettled(lane, sessionId, state, tool))) continue
    await lane.appendAsA2(sessionId, [toolInterrupted(tool, active.pausedBy ?? 'paused')])
    settled = true
  }
  return settled
}

/**
 * Work that ended with its turn (Stop, an interruption, a hand-off), and a
 * pausing turn's model step, get their terminal fact here, so the turn can
 * settle even when the worker is gone. The worker is fenced out by revoking
 * its claim (see revokeWorkEndedBy).
 */
function settleAbortedWork(state: AIState): AIEventInput<UIMessage>[] {
  const abort = workToAbort(state)
  const events: AIEventInput<UIMessage>[] = []
  const generation = state.activeGeneration
  if (abort.generationId !== null && generation) {
    events.push({
      id: derivedId('gen-completed', abort.generationId),
      type: 'ai.generation.completed',
      payload: {
        generationId: abort.generationId,
        requestId: generation.requestId,
        outcome: 'interrupted',
      },
    })
  }
  // A compaction whose generation is no longer running was cut short.
  if (state.compaction?.status === 'running' && generation?.status !== 'running') {
    events.push({
      id: derivedId('compaction-interrupted', state.compaction.compactionId),
      type: 'ai.compaction.failed',
      payload: { compactionId: state.compaction.compactionId, status: 'interrupted' },
    })
  }
  const cause = state.active?.pausedBy ?? 'ended'
  for (const tool of abort.tools) {
    if (tool.status === 'cancelled') events.push(toolInterrupted(tool, cause))
  }
  return events
}

/**
 * Before writing events that end running work (Stop, interrupt, Pause now,
 * a hand-off), take the workers' claims away: their next renewal or fenced
 * write fails and they abort, on this host at once. What ends is read off
 * the state the events lead to, not off the event types.
 */
async function revokeWorkEndedBy(
  lane: LaneContext,
  sessionId: string,
  state: AIState,
  events: readonly AIEventInput<UIMessage>[],
): Promise<void> {
  const after = foldDraft(state, events)
  const keys: string[] = []
  const generation = state.activeGeneration
  if (generation?.status === 'running' && !isCurrentGeneration(after, generation.generationId)) {
    keys.push(generationClaimKey(generation.requestId))
  }
  for (const tool of state.tools) {
    if (tool.status !== 'running') continue
    const now = after.tools.find(
      (candidate) =>
        candidate.toolCallId === tool.toolCallId && candidate.generationId === tool.generationId,
    )
    // Only cut-short calls; a finished or still running one keeps its worker.
    if (now?.status !== 'cancelled' && now?.status !== 'interrupted') continue
    keys.push(toolClaimKey(tool))
  }
  for (const key of keys) {
    await lane.store.revokeClaim(sessionId, key)
    lane.abortLocal(sessionId, key, 'revoked')
  }
}
