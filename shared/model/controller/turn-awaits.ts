import type { UIMessage } from 'ai'
import type { AIState } from '../state/ai-state.ts'
import { awaitsResult } from './advance.ts'

/**
 * Something that will move the active turn on when it happens. A2's own work
 * (`model-step`, `tool`) ends by itself: a lane runs it under a claim, and a
 * crashed worker's claim expires and the work is taken over. The rest is
 * someone's answer: a provider's deferred result through
 * `inputs.toolResult()`, a user's approval, input, retry or resume.
 */
export type AwaitedWork =
  | { kind: 'model-step'; requestId: string }
  | { kind: 'tool'; toolCallId: string; generationId: string }
  | { kind: 'deferred-result'; toolCallId: string; generationId: string }
  | { kind: 'approval'; approvalId: string }
  | { kind: 'input'; inputRequestId: string }
  | { kind: 'retry' }
  | { kind: 'resume' }

/**
 * What the active turn waits on; `[]` when there is no active turn. The
 * runtime's invariant: once the controller has advanced (`advance()` returns
 * `[]`), an active turn waits on at least one thing, so a turn never waits on
 * nothing. A paused turn waits for Resume; a pausing one for its cut-short
 * tools to settle (their workers acknowledge, or a settle timer fires); a
 * failed one for retry or interruption.
 *
 * @example
 * if (state.active && turnAwaits(state).length === 0) throw new Error('stuck')
 */
export function turnAwaits<M extends UIMessage>(state: AIState<M>): AwaitedWork[] {
  const active = state.active
  if (active === null) return []
  const awaited: AwaitedWork[] = []
  const generation = state.activeGeneration
  if (generation?.status === 'running')
    awaited.push({ kind: 'model-step', requestId: generation.requestId })
  else if (state.activeRequestId !== null && active.phase !== 'paused')
    awaited.push({ kind: 'model-step', requestId: state.activeRequestId })
  for (const tool of state.tools) {
    if (tool.turnId !== active.turnId || tool.status !== 'running') continue
    const call = { toolCallId: tool.toolCallId, generationId: tool.generationId }
    if (tool.providerExecuted !== true) awaited.push({ kind: 'tool', ...call })
    else if (awaitsResult(tool)) awaited.push({ kind: 'deferred-result', ...call })
  }
  for (const approval of state.pendingApprovals) {
    if (approval.turnId === active.turnId)
      awaited.push({ kind: 'approval', approvalId: approval.approvalId })
  }
  for (const input of state.pendingInputs) {
    if (input.turnId === active.turnId && input.status === 'pending')
      awaited.push({ kind: 'input', inputRequestId: input.inputRequestId })
  }
  if (active.phase === 'failed') awaited.push({ kind: 'retry' })
  if (active.phase === 'paused') awaited.push({ kind: 'resume' })
  return awaited
}
