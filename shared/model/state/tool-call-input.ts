import type { AIState, ToolRecord } from './ai-state.ts'

/**
 * A call's input lives in its message part, not in `state.tools`. A reused
 * provider ID can name parts of earlier steps too; the call that runs is the
 * latest one (an earlier step's calls are terminal before the next starts).
 * What the tools lane runs a call on, and what the compatibility check
 * checks against a new schema.
 */
export function toolCallInput(
  state: Pick<AIState, 'messages'>,
  record: Pick<ToolRecord, 'messageId' | 'toolCallId'>,
): unknown {
  const message = state.messages.find((candidate) => candidate.id === record.messageId)
  const parts = message?.parts ?? []
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i] as { toolCallId?: string; input?: unknown }
    if (part.toolCallId === record.toolCallId) return part.input
  }
  return undefined
}
