import type { UIMessage } from 'ai'
import { derivedId } from '../ids/ids.ts'
import type { AIState } from '../state/ai-state.ts'
import { type RequestOf, reject, type Verdict } from './verdict.ts'

// Verdicts on requests that answer or feed a tool call: approvals, input
// requests and their answers, and results of provider-run tools.

export function judgeApproval<M extends UIMessage>(
  state: AIState<M>,
  request: RequestOf<M, 'approval'>,
): Verdict<M> {
  const approval = state.pendingApprovals.find(
    (candidate) => candidate.approvalId === request.approvalId,
  )
  const matches =
    approval !== undefined &&
    approval.turnId === state.active?.turnId &&
    approval.toolCallId === request.toolCallId &&
    approval.messageId === request.messageId &&
    approval.generationId === request.generationId
  if (!matches) return reject('stale-approval')
  const reason = request.reason === undefined ? {} : { reason: request.reason }
  return {
    changes: [
      {
        op: 'approval.respond',
        approvalId: request.approvalId,
        approved: request.approved,
        ...reason,
      },
    ],
    after: request.approved
      ? []
      : [
          {
            id: derivedId('denied', request.approvalId),
            type: 'ai.tool.result',
            payload: {
              toolCallId: request.toolCallId,
              generationId: request.generationId,
              messageId: request.messageId,
              outcome: 'denied',
              ...reason,
            },
          },
        ],
  }
}

export function judgeInput<M extends UIMessage>(
  state: AIState<M>,
  request: RequestOf<M, 'input'>,
): Verdict<M> {
  const input = state.pendingInputs.find(
    (candidate) => candidate.inputRequestId === request.inputRequestId,
  )
  if (input?.status !== 'pending') return reject('stale-input')
  return {
    changes: [
      { op: 'input.respond', inputRequestId: request.inputRequestId, value: request.value },
    ],
  }
}

export function judgeRequestInput<M extends UIMessage>(
  state: AIState<M>,
  request: RequestOf<M, 'requestInput'>,
): Verdict<M> {
  const active = state.active
  if (state.pendingInputs.some((input) => input.inputRequestId === request.inputRequestId)) {
    return reject('invalid-command')
  }
  if (request.turnId !== undefined && request.turnId !== active?.turnId) return reject('stale-turn')
  // A tool's request joins its call's turn: once that turn ended (a Stop
  // decided first), the request is stale, as the turn's own pending
  // inputs were closed with it, not a pending input of no turn.
  if (
    request.turnId === undefined &&
    request.toolCallId !== undefined &&
    !state.tools.some(
      (tool) => tool.toolCallId === request.toolCallId && tool.turnId === active?.turnId,
    )
  )
    return reject('stale-turn')
  const { action: _action, turnId, ...rest } = request
  return {
    changes: [{ op: 'input.request', ...rest, turnId: turnId ?? active?.turnId ?? null }],
  }
}

export function judgeToolResult<M extends UIMessage>(
  state: AIState<M>,
  commandId: string,
  request: RequestOf<M, 'toolResult'>,
): Verdict<M> {
  const tool = state.tools.find(
    (candidate) =>
      candidate.toolCallId === request.toolCallId &&
      candidate.generationId === request.generationId &&
      candidate.messageId === request.messageId,
  )
  if (tool === undefined || tool.turnId !== state.active?.turnId || tool.status !== 'running') {
    return reject('stale-tool-call')
  }
  return {
    changes: [],
    before: [
      {
        id: derivedId('tool-result', commandId),
        type: 'ai.tool.result',
        payload: {
          toolCallId: request.toolCallId,
          generationId: request.generationId,
          messageId: request.messageId,
          providerExecuted: true,
          ...(request.errorText === undefined
            ? { outcome: 'output' as const, output: request.output }
            : { outcome: 'error' as const, errorText: request.errorText }),
          ...(request.providerMetadata === undefined
            ? {}
            : { providerMetadata: request.providerMetadata }),
        },
      },
    ],
  }
}
