import type { UIMessage } from 'ai'
import { eventContent } from '../../log/canonical-json.ts'
import type { StoredEvent } from '../../log/event.ts'
import type { StepIdentity } from '../../model/controller/step-facts.ts'
import type { AIEventInput } from '../../model/events/ai-events.ts'
import { derivedId } from '../../model/ids/ids.ts'
import { sleep } from '../../timing/sleep.ts'
import type { HarnessApprovalDecision, HarnessApprovals } from '../harness/harness.ts'
import type { GenerationPorts } from '../lanes/lane-ports.ts'

/** How often a step waiting for the user's answer reads the log again. */
const DECISION_POLL_MS = 100

/**
 * Approvals for calls a loop runs itself (an ACP agent's permission
 * request): the request is recorded under the step's fence, with the IDs a
 * model step's approval gets, so the user answers it with `approve()` /
 * `deny()` as any other; the answer is read back from the log while the
 * step holds its claim. A recovered attempt (the process that asked died,
 * a day later the user answered) runs the agent's turn again, and the agent
 * asks again: when an earlier attempt of the same turn had that request
 * (the same call ID, or the same tool and input, as a new ACP session's
 * call IDs may differ) and the log has the user's answer to it, the answer
 * is given at once, each earlier answer once per attempt.
 */
export function harnessApprovals(
  lane: Pick<GenerationPorts, 'state' | 'read'>,
  sessionId: string,
  step: StepIdentity,
  append: (events: AIEventInput<UIMessage>[]) => Promise<unknown>,
  signal: AbortSignal,
): HarnessApprovals {
  const reused = new Set<string>()
  return {
    async request(call) {
      const earlier = answeredBefore(await lane.read(sessionId), step, call, reused)
      if (earlier) {
        reused.add(earlier.approvalId)
        return earlier.decision
      }
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

/**
 * The user's answer to the same request by an earlier attempt of the step's
 * turn (a superseded one), not yet reused by this attempt.
 */
function answeredBefore(
  events: readonly StoredEvent[],
  step: StepIdentity,
  call: { toolCallId: string; toolName: string; input: unknown },
  reused: ReadonlySet<string>,
): { approvalId: string; decision: HarnessApprovalDecision } | undefined {
  const answers = new Map<string, HarnessApprovalDecision>()
  for (const event of events) {
    if (event.type !== 'ai.control.committed') continue
    const { changes } = event.payload as { changes: { op: string; [key: string]: unknown }[] }
    for (const change of changes) {
      if (change.op !== 'approval.respond') continue
      answers.set(
        change.approvalId as string,
        change.approved === true
          ? { approved: true }
          : {
              approved: false,
              ...(typeof change.reason === 'string' ? { reason: change.reason } : {}),
            },
      )
    }
  }
  const input = eventContent({ type: call.toolName, payload: call.input ?? {} })
  for (const event of events) {
    if (event.type !== 'ai.approval.requested') continue
    const requested = event.payload as {
      approvalId: string
      toolCallId: string
      toolName: string
      generationId: string
      turnId: string
      input?: unknown
    }
    if (requested.turnId !== step.turnId || requested.generationId === step.generationId) continue
    if (reused.has(requested.approvalId)) continue
    const same =
      requested.toolCallId === call.toolCallId ||
      (requested.toolName === call.toolName &&
        eventContent({ type: requested.toolName, payload: requested.input ?? {} }) === input)
    const decision = answers.get(requested.approvalId)
    if (same && decision) return { approvalId: requested.approvalId, decision }
  }
  return undefined
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
