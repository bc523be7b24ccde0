import type { Tool, ToolSet, UIMessage, UIMessageChunk } from 'ai'
import type { AIEventInput } from '../events/ai-events.ts'
import { derivedId } from '../ids/ids.ts'
import type { AIState } from '../state/ai-state.ts'

/**
 * Whether a call needs the user's approval before it runs: per tool, a
 * fixed answer or a function of the call's input (`harness.generation.toolApproval`).
 */
export type ToolApprovalPolicy =
  | 'user-approval'
  | 'approved'
  | ((input: unknown) => 'user-approval' | 'approved')

export interface StepIdentity {
  generationId: string
  turnId: string
  /** The response message the step writes. */
  messageId: string
}

/**
 * The durable facts a model step's stream makes due, chunk by chunk: a call
 * whose input is complete becomes `ai.tool.called` (with an approval request
 * per policy, or an error result for input the tool refuses), and a
 * provider-executed call answered in the stream gets its `ai.tool.result`.
 * Every ID derives from the generation and the provider's call ID, so a
 * retried append of the same attempt replays.
 */
export function stepFacts(
  tools: ToolSet,
  policies: Record<string, ToolApprovalPolicy>,
  step: StepIdentity,
  state: AIState,
): (chunk: UIMessageChunk) => AIEventInput<UIMessage>[] {
  const { generationId, turnId, messageId } = step
  /** Provider-executed calls of this step still waiting for their result. */
  const providerCalls = new Set<string>()
  const called = new Set<string>()
  const definition = (name: string): Tool | undefined =>
    Object.hasOwn(tools, name) ? tools[name] : undefined

  const toolCalled = (
    toolCallId: string,
    toolName: string,
    providerExecuted: boolean,
  ): AIEventInput<UIMessage> => {
    called.add(toolCallId)
    const tool = definition(toolName) as { supportsDeferredResults?: boolean } | undefined
    return {
      id: derivedId('tool-called', generationId, toolCallId),
      type: 'ai.tool.called',
      payload: {
        toolCallId,
        toolName,
        generationId,
        messageId,
        turnId,
        ...(providerExecuted ? { providerExecuted: true } : {}),
        ...(providerExecuted && tool?.supportsDeferredResults ? { deferredResult: true } : {}),
      },
    }
  }

  /**
   * The call a provider result answers: one of this step's, or an earlier
   * step's call of the turn that a later response answers (after an approval).
   */
  const answeredCall = (toolCallId: string): { generationId: string; messageId: string } | null => {
    if (providerCalls.has(toolCallId)) return { generationId, messageId }
    const earlier = state.tools.findLast(
      (tool) =>
        tool.toolCallId === toolCallId &&
        tool.turnId === turnId &&
        tool.providerExecuted === true &&
        tool.status === 'running',
    )
    return earlier ? { generationId: earlier.generationId, messageId: earlier.messageId } : null
  }

  return (chunk) => {
    switch (chunk.type) {
      case 'tool-input-available': {
        if (called.has(chunk.toolCallId)) return []
        const providerExecuted = chunk.providerExecuted === true
        const events = [toolCalled(chunk.toolCallId, chunk.toolName, providerExecuted)]
        if (providerExecuted) {
          providerCalls.add(chunk.toolCallId)
          return events
        }
        const policy = Object.hasOwn(policies, chunk.toolName)
          ? policies[chunk.toolName]
          : undefined
        const decision = typeof policy === 'function' ? policy(chunk.input) : (policy ?? 'approved')
        if (decision === 'user-approval') {
          events.push({
            id: derivedId('approval-requested', generationId, chunk.toolCallId),
            type: 'ai.approval.requested',
            payload: {
              approvalId: derivedId('approval', generationId, chunk.toolCallId),
              toolCallId: chunk.toolCallId,
              toolName: chunk.toolName,
              generationId,
              messageId,
              turnId,
              input: chunk.input,
            },
          })
        }
        return events
      }
      case 'tool-input-error': {
        if (called.has(chunk.toolCallId)) return []
        return [
          toolCalled(chunk.toolCallId, chunk.toolName, false),
          {
            id: derivedId('tool-invalid', generationId, chunk.toolCallId),
            type: 'ai.tool.result',
            payload: {
              toolCallId: chunk.toolCallId,
              generationId,
              messageId,
              outcome: 'error',
              errorText: chunk.errorText,
            },
          },
        ]
      }
      case 'tool-output-available':
      case 'tool-output-error': {
        if (chunk.providerExecuted !== true) return []
        if (chunk.type === 'tool-output-available' && chunk.preliminary) return []
        const call = answeredCall(chunk.toolCallId)
        if (call === null) return []
        providerCalls.delete(chunk.toolCallId)
        return [
          {
            id: derivedId('provider-result', generationId, chunk.toolCallId),
            type: 'ai.tool.result',
            payload: {
              toolCallId: chunk.toolCallId,
              generationId: call.generationId,
              messageId: call.messageId,
              providerExecuted: true,
              ...(chunk.type === 'tool-output-available'
                ? { outcome: 'output' as const, output: chunk.output }
                : { outcome: 'error' as const, errorText: chunk.errorText }),
              ...(chunk.providerMetadata === undefined
                ? {}
                : { providerMetadata: chunk.providerMetadata as Record<string, unknown> }),
            },
          },
        ]
      }
      default:
        return []
    }
  }
}
