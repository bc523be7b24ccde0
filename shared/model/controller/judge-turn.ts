import type { UIMessage } from 'ai'
import type { AIState } from '../state/ai-state.ts'
import { type RequestOf, reject, type Verdict } from './verdict.ts'

// Verdicts on requests that steer the active turn or the session: stop,
// interrupt, retry, pause and resume.

/** Whether the interrupt's owner is still part of the active turn. */
function ownerMatches<M extends UIMessage>(
  state: AIState<M>,
  owner: RequestOf<M, 'interrupt'>['owner'],
): boolean {
  const active = state.active
  if (active === null) return false
  if ('requestId' in owner) {
    return (
      state.activeRequestId === owner.requestId && state.activeResponseMessageId === owner.messageId
    )
  }
  if ('generationId' in owner) {
    return (
      state.activeGeneration?.generationId === owner.generationId &&
      state.activeGeneration.responseMessageId === owner.responseMessageId
    )
  }
  if ('approvalId' in owner) {
    return state.pendingApprovals.some(
      (approval) => approval.approvalId === owner.approvalId && approval.turnId === active.turnId,
    )
  }
  if ('inputRequestId' in owner) {
    return state.pendingInputs.some(
      (input) =>
        input.inputRequestId === owner.inputRequestId &&
        input.turnId === active.turnId &&
        input.status === 'pending',
    )
  }
  return state.tools.some(
    (tool) =>
      tool.toolCallId === owner.toolCallId &&
      tool.turnId === active.turnId &&
      tool.status === 'running',
  )
}

export function judgeStop<M extends UIMessage>(
  state: AIState<M>,
  request: RequestOf<M, 'stop'>,
): Verdict<M> {
  const active = state.active
  if (active?.turnId !== request.turnId) return reject('stale-turn')
  return {
    changes: [
      { op: 'turn.stop', turnId: active.turnId, frontier: request.frontier, reason: 'stopped' },
    ],
  }
}

export function judgeInterrupt<M extends UIMessage>(
  state: AIState<M>,
  request: RequestOf<M, 'interrupt'>,
): Verdict<M> {
  const active = state.active
  if (active === null || !ownerMatches(state, request.owner)) return reject('stale-owner')
  return {
    changes: [{ op: 'turn.stop', turnId: active.turnId, frontier: null, reason: 'interrupted' }],
  }
}

export function judgeRetry<M extends UIMessage>(
  state: AIState<M>,
  request: RequestOf<M, 'retry'>,
): Verdict<M> {
  const active = state.active
  if (active?.turnId !== request.turnId) return reject('stale-turn')
  if (active.phase !== 'failed') return reject('not-failed')
  return { changes: [{ op: 'turn.retry', turnId: active.turnId, retryId: request.retryId }] }
}

export function judgeResume<M extends UIMessage>(state: AIState<M>): Verdict<M> {
  const active = state.active
  const held = active !== null && (active.phase === 'paused' || active.phase === 'pausing')
  if (!state.inbox.paused && !held) return reject('not-paused')
  return { changes: [{ op: 'resume' }] }
}
