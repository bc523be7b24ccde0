import type { UIMessage } from 'ai'
import type { ControlChange } from '../events/controller-events.ts'
import type { AIState } from './ai-state.ts'
import { applyToResponseMessage } from './response-helpers.ts'

// Accepted changes to what a turn waits on: an approval's answer, and input
// requests opened, answered and closed.

type ChangeOf<O extends ControlChange['op']> = Extract<ControlChange, { op: O }>

export function respondToApproval<M extends UIMessage>(
  state: AIState<M>,
  change: ChangeOf<'approval.respond'>,
  index: number,
): AIState<M> {
  const approval = state.pendingApprovals.find(
    (pending) => pending.approvalId === change.approvalId,
  )
  if (approval === undefined) return state
  const next: AIState<M> = {
    ...state,
    pendingApprovals: state.pendingApprovals.filter((pending) => pending !== approval),
    tools: state.tools.map((tool) =>
      tool.toolCallId === approval.toolCallId && tool.generationId === approval.generationId
        ? { ...tool, status: change.approved ? 'running' : 'denied' }
        : tool,
    ),
  }
  return applyToResponseMessage(next, approval.messageId, index, [
    {
      type: 'tool-approval-response',
      approvalId: change.approvalId,
      approved: change.approved,
      ...(change.reason === undefined ? {} : { reason: change.reason }),
    },
  ])
}

export function openInputRequest<M extends UIMessage>(
  state: AIState<M>,
  change: ChangeOf<'input.request'>,
): AIState<M> {
  if (state.pendingInputs.some((input) => input.inputRequestId === change.inputRequestId))
    return state
  return {
    ...state,
    pendingInputs: [
      ...state.pendingInputs,
      {
        inputRequestId: change.inputRequestId,
        turnId: change.turnId,
        request: change.request,
        status: 'pending',
        ...(change.messageId === undefined ? {} : { messageId: change.messageId }),
        ...(change.generationId === undefined ? {} : { generationId: change.generationId }),
        ...(change.toolCallId === undefined ? {} : { toolCallId: change.toolCallId }),
      },
    ],
  }
}

export function answerInputRequest<M extends UIMessage>(
  state: AIState<M>,
  change: ChangeOf<'input.respond'>,
): AIState<M> {
  return {
    ...state,
    pendingInputs: state.pendingInputs.map((input) =>
      input.inputRequestId === change.inputRequestId
        ? { ...input, status: 'answered', value: change.value }
        : input,
    ),
  }
}

export function closeInputRequest<M extends UIMessage>(
  state: AIState<M>,
  change: ChangeOf<'input.close'>,
): AIState<M> {
  return {
    ...state,
    pendingInputs: state.pendingInputs.filter(
      (input) => input.inputRequestId !== change.inputRequestId || input.status === 'answered',
    ),
  }
}
