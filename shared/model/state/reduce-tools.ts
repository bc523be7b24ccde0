import type { UIMessage, UIMessageChunk } from 'ai'
import type { AIEventPayload } from '../events/ai-events.ts'
import { type AIState, generationOf, type ToolRecord, type ToolStatus } from './ai-state.ts'
import { applyToActiveResponse } from './response-helpers.ts'

// Tool calls, approvals and results. `tools` keeps identities and status;
// inputs and outputs go into the response message as the AI SDK's chunks.
// A result for a call whose turn ended only settles the call's record: the
// closed response is not touched again.

const sameCall = (tool: ToolRecord, toolCallId: string, generationId: string): boolean =>
  tool.toolCallId === toolCallId && tool.generationId === generationId

function onActiveResponse<M extends UIMessage>(
  state: AIState<M>,
  turnId: string,
  messageId: string,
  index: number,
  chunks: UIMessageChunk[],
): AIState<M> {
  if (state.active?.turnId !== turnId || state.response?.messageId !== messageId) return state
  return applyToActiveResponse(state, index, chunks)
}

export function reduceToolCalled<M extends UIMessage>(
  state: AIState<M>,
  payload: AIEventPayload<'ai.tool.called', M>,
  event: { id: string; index: number; timestamp: number },
): AIState<M> {
  if (state.active?.turnId !== payload.turnId) return state
  if (state.tools.some((tool) => sameCall(tool, payload.toolCallId, payload.generationId)))
    return state
  const generation = generationOf(state.active)
  const version = generation?.generationId === payload.generationId ? generation.version : undefined
  const tool: ToolRecord = {
    toolCallId: payload.toolCallId,
    toolName: payload.toolName,
    turnId: payload.turnId,
    generationId: payload.generationId,
    messageId: payload.messageId,
    status: 'running',
    called: { id: event.id, index: event.index, timestamp: event.timestamp },
    ...(payload.providerExecuted === undefined
      ? {}
      : { providerExecuted: payload.providerExecuted }),
    ...(payload.deferredResult ? { deferredResult: true } : {}),
    ...(version === undefined ? {} : { version }),
  }
  return { ...state, tools: [...state.tools, tool] }
}

export function reduceApprovalRequested<M extends UIMessage>(
  state: AIState<M>,
  payload: AIEventPayload<'ai.approval.requested', M>,
  index: number,
): AIState<M> {
  if (state.active?.turnId !== payload.turnId) return state
  if (state.pendingApprovals.some((approval) => approval.approvalId === payload.approvalId))
    return state
  const known = state.tools.some((tool) => sameCall(tool, payload.toolCallId, payload.generationId))
  const tools: ToolRecord[] = known
    ? state.tools.map((tool) =>
        sameCall(tool, payload.toolCallId, payload.generationId)
          ? { ...tool, status: 'awaiting-approval' }
          : tool,
      )
    : [
        ...state.tools,
        {
          toolCallId: payload.toolCallId,
          toolName: payload.toolName,
          turnId: payload.turnId,
          generationId: payload.generationId,
          messageId: payload.messageId,
          status: 'awaiting-approval',
        },
      ]
  const next: AIState<M> = {
    ...state,
    tools,
    pendingApprovals: [
      ...state.pendingApprovals,
      {
        approvalId: payload.approvalId,
        toolCallId: payload.toolCallId,
        toolName: payload.toolName,
        messageId: payload.messageId,
        generationId: payload.generationId,
        turnId: payload.turnId,
        ...(payload.input === undefined ? {} : { input: payload.input }),
      },
    ],
  }
  return onActiveResponse(next, payload.turnId, payload.messageId, index, [
    {
      type: 'tool-approval-request',
      approvalId: payload.approvalId,
      toolCallId: payload.toolCallId,
      ...(payload.reason === undefined ? {} : { reason: payload.reason }),
    },
  ])
}

function resultChunks<M extends UIMessage>(
  state: AIState<M>,
  payload: AIEventPayload<'ai.tool.result', M>,
): UIMessageChunk[] {
  const metadata = {
    ...(payload.providerExecuted === undefined
      ? {}
      : { providerExecuted: payload.providerExecuted }),
    ...(payload.providerMetadata === undefined
      ? {}
      : // Stored as the JSON record the provider sent; the chunk's type is
        // the SDK's ProviderMetadata, a record of JSON records.
        { providerMetadata: payload.providerMetadata as never }),
  }
  switch (payload.outcome) {
    case 'output':
      return [
        {
          type: 'tool-output-available',
          toolCallId: payload.toolCallId,
          output: payload.output,
          ...(payload.preliminary ? { preliminary: true } : {}),
          ...metadata,
        },
      ]
    case 'error':
      return [
        {
          type: 'tool-output-error',
          toolCallId: payload.toolCallId,
          errorText: payload.errorText ?? 'The tool call failed.',
          ...metadata,
        },
      ]
    case 'denied': {
      // A denial the user did not answer (closed on hand-off) also answers
      // the approval part, so it reads as denied rather than still waiting.
      const pending = state.pendingApprovals.find(
        (approval) =>
          approval.toolCallId === payload.toolCallId &&
          approval.generationId === payload.generationId,
      )
      return [
        ...(pending
          ? [
              {
                type: 'tool-approval-response' as const,
                approvalId: pending.approvalId,
                approved: false,
                ...(payload.reason === undefined ? {} : { reason: payload.reason }),
              },
            ]
          : []),
        { type: 'tool-output-denied', toolCallId: payload.toolCallId },
      ]
    }
  }
}

const statusAfter = (payload: AIEventPayload<'ai.tool.result'>): ToolStatus =>
  payload.outcome === 'output'
    ? payload.preliminary
      ? 'running'
      : 'completed'
    : payload.outcome === 'error'
      ? 'failed'
      : 'denied'

export function reduceToolResult<M extends UIMessage>(
  state: AIState<M>,
  payload: AIEventPayload<'ai.tool.result', M>,
  index: number,
): AIState<M> {
  const tool = state.tools.find((candidate) =>
    sameCall(candidate, payload.toolCallId, payload.generationId),
  )
  if (tool === undefined) return state
  if (tool.status === 'cancelled') {
    return payload.preliminary
      ? state
      : { ...state, tools: state.tools.filter((candidate) => candidate !== tool) }
  }
  const chunks = resultChunks(state, payload)
  const attempt = generationOf(state.active)
  const stepOpen = attempt?.generationId === tool.generationId && attempt.status === 'running'
  const updated: ToolRecord = {
    ...tool,
    status: statusAfter(payload),
    ...(tool.providerExecuted && !stepOpen ? { answeredAfterStep: true } : {}),
  }
  const next: AIState<M> = {
    ...state,
    tools: state.tools.map((candidate) => (candidate === tool ? updated : candidate)),
    pendingApprovals: state.pendingApprovals.filter(
      (approval) =>
        !(
          approval.toolCallId === payload.toolCallId &&
          approval.generationId === payload.generationId
        ),
    ),
  }
  return onActiveResponse(next, tool.turnId, payload.messageId, index, chunks)
}

export function reduceToolInterrupted<M extends UIMessage>(
  state: AIState<M>,
  payload: AIEventPayload<'ai.tool.interrupted', M>,
): AIState<M> {
  const tool = state.tools.find((candidate) =>
    sameCall(candidate, payload.toolCallId, payload.generationId),
  )
  if (tool === undefined) return state
  if (tool.status === 'cancelled')
    return { ...state, tools: state.tools.filter((candidate) => candidate !== tool) }
  if (tool.status !== 'running') return state
  // Only the Pause now that is settling interrupts a running call: a late
  // acknowledgement or settle timer after Resume leaves the rerun alone.
  const active = state.active
  const pausing =
    active?.turnId === tool.turnId &&
    active.phase === 'pausing' &&
    (payload.reason === undefined || payload.reason === active.pausedBy)
  if (!pausing) return state
  return {
    ...state,
    tools: state.tools.map((candidate) =>
      candidate === tool ? { ...tool, status: 'interrupted' } : candidate,
    ),
  }
}

/**
 * A model step whose output is discarded (a superseded attempt, a failed step
 * being retried): its calls leave with it. Work under way is cancelled and
 * settles as cut short; an approval nobody answered yet closes, so it cannot
 * authorize a call the model no longer made, nor hold the next step's join.
 */
export function discardStepCalls<M extends UIMessage>(
  state: AIState<M>,
  generationId: string,
): AIState<M> {
  const ofStep = (call: { generationId: string }) => call.generationId === generationId
  return {
    ...state,
    tools: state.tools.flatMap((tool): ToolRecord[] => {
      if (!ofStep(tool)) return [tool]
      if (tool.status === 'running') return [{ ...tool, status: 'cancelled' }]
      return tool.status === 'awaiting-approval' ? [] : [tool]
    }),
    pendingApprovals: state.pendingApprovals.filter((approval) => !ofStep(approval)),
  }
}
