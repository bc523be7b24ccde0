import type { UIMessage } from 'ai'
import type { AIEventInput } from '../events/ai-events.ts'
import { derivedId } from '../ids/ids.ts'
import type { AIState, ToolRecord } from '../state/ai-state.ts'
import { workToAbort } from './due-work.ts'
import { compactionInterrupted, generationCompleted } from './generation-attempt.ts'

// The terminal facts of work that ended without its worker: the controller
// records them so a turn can settle even when the worker is gone (it is
// fenced out by having its claim revoked). Each ID derives from the work, so
// the controller, a worker and a timer recording the same fact write one event.

/** The fact that settles a call cut short by `cause` (a Pause now, or a turn's end). */
export function toolInterrupted(tool: ToolRecord, cause: string): AIEventInput<UIMessage> {
  return {
    id: derivedId('tool-interrupted', tool.generationId, tool.toolCallId, cause),
    type: 'ai.tool.interrupted',
    payload: { toolCallId: tool.toolCallId, generationId: tool.generationId, reason: cause },
  }
}

/**
 * Work that ended with its turn (Stop, an interruption, a hand-off), and a
 * pausing turn's model step, get their terminal fact.
 */
export function settleAbortedWork<M extends UIMessage>(state: AIState<M>): AIEventInput<M>[] {
  const abort = workToAbort(state)
  const events: AIEventInput<M>[] = []
  const generation = state.activeGeneration
  if (abort.generationId !== null && generation) {
    events.push(
      generationCompleted(abort.generationId, generation.requestId, { outcome: 'interrupted' }),
    )
  }
  if (generation?.status !== 'running') events.push(...compactionInterrupted(state))
  const cause = state.active?.pausedBy ?? 'ended'
  for (const tool of abort.tools) {
    if (tool.status === 'cancelled') events.push(toolInterrupted(tool, cause) as AIEventInput<M>)
  }
  return events
}

/**
 * Pause now's running tool calls, which settle only once no worker can be
 * running them: the worker acknowledges, a timer fires, or the controller
 * finds the call was never taken (see the admission lane).
 */
export function pausingToolCalls<M extends UIMessage>(state: AIState<M>): ToolRecord[] {
  const active = state.active
  if (active?.phase !== 'pausing') return []
  return workToAbort(state).tools.filter(
    (tool) => tool.status === 'running' && tool.turnId === active.turnId,
  )
}
