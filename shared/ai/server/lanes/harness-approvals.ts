import type { UIMessage } from 'ai'
import { sleep } from '../../../timing/sleep.ts'
import type { StepIdentity } from '../../controller/step-facts.ts'
import type { AIEventInput } from '../../events/ai-events.ts'
import { derivedId } from '../../ids.ts'
import type { HarnessApprovalDecision, HarnessApprovals } from '../harness/harness.ts'
import type { GenerationPorts } from './lane-ports.ts'

/** How often a step waiting for the user's answer reads the log again. */
const DECISION_POLL_MS = 100

/**
 * Approvals for calls a loop runs itself (an ACP agent's permission
 * request): the request is recorded under the step's fence, with the IDs a
 * model step's approval gets, so the user answers it with `approve()` /
 * `deny()` as any other; the answer is read back from the log while the
 * step holds its claim. A recovered attempt asks again and, when the log
 * already has the answer for the call, gets it at once.
 */
export function harnessApprovals(
  lane: Pick<GenerationPorts, 'state'>,
  sessionId: string,
  step: StepIdentity,
  append: (events: AIEventInput<UIMessage>[]) => Promise<unknown>,
  signal: AbortSignal,
): HarnessApprovals {
  return {
    async request(call) {
      const approvalId = derivedId('approval', step.generationId, call.toolCallId)
      await append([
        {
          id: derivedId('approval-requested', step.generationId, call.toolCallId),
          type: 'ai.approval.requested',
          payload: {
            approvalId,
            toolCallId: call.toolCallId,
            toolName: call.toolName,
            generationId: step.generationId,
            messageId: step.messageId,
            turnId: step.turnId,
            input: call.input,
          },
        },
      ])
      for (;;) {
        if (signal.aborted) throw signal.reason ?? new Error('aborted')
        const decision = decided(
          (await lane.state(sessionId)).state.ai,
          approvalId,
          call.toolCallId,
          step,
        )
        if (decision) return decision
        await sleep(DECISION_POLL_MS, signal)
      }
    },
  }
}

type AI = Awaited<ReturnType<GenerationPorts['state']>>['state']['ai']

function decided(
  state: AI,
  approvalId: string,
  toolCallId: string,
  step: StepIdentity,
): HarnessApprovalDecision | undefined {
  if (state.pendingApprovals.some((pending) => pending.approvalId === approvalId)) return undefined
  const tool = state.tools.find(
    (candidate) =>
      candidate.toolCallId === toolCallId && candidate.generationId === step.generationId,
  )
  if (tool === undefined || tool.status === 'awaiting-approval') return undefined
  if (tool.status === 'denied') return { approved: false, ...reasonOf(state, approvalId) }
  return { approved: true }
}

/** The reason a denial gave, from the response message's approval part. */
function reasonOf(state: AI, approvalId: string): { reason?: string } {
  for (const message of state.messages) {
    for (const part of message.parts) {
      const approval = (part as { approval?: { id?: string; reason?: string } }).approval
      if (approval?.id === approvalId && typeof approval.reason === 'string') {
        return { reason: approval.reason }
      }
    }
  }
  return {}
}
