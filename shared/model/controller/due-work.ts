import type { UIMessage } from 'ai'
import type { AIState, ToolRecord } from '../state/ai-state.ts'

// What the runtime should be doing, read from confirmed state. Pure: the
// runtime compares it with what it runs and starts or aborts the difference.

export interface DueGeneration {
  requestId: string
  turnId: string
  responseMessageId: string
  step: number
}

/** The generation request waiting to start, if any. */
export function dueGeneration<M extends UIMessage>(state: AIState<M>): DueGeneration | null {
  const active = state.active
  if (active === null || state.activeRequestId === null) return null
  if (active.phase === 'pausing' || active.phase === 'paused') return null
  return {
    requestId: state.activeRequestId,
    turnId: active.turnId,
    responseMessageId: active.responseMessageId,
    step: active.step,
  }
}

/**
 * Tool calls A2 should run now: accepted (approved when approval was asked),
 * not yet terminal, in the active turn, while it is not pausing or paused.
 * Provider-executed calls are the provider's.
 */
export function runnableTools<M extends UIMessage>(state: AIState<M>): ToolRecord[] {
  const active = state.active
  if (active === null || active.phase === 'pausing' || active.phase === 'paused') return []
  return state.tools.filter(
    (tool) =>
      tool.turnId === active.turnId && tool.status === 'running' && tool.providerExecuted !== true,
  )
}

/**
 * Work to abort: a generation or tools of a turn that is pausing (A2's own:
 * a provider's call keeps waiting for its answer), and tool calls whose turn
 * ended (Stop, interruption, hand-off) without a result.
 */
export function workToAbort<M extends UIMessage>(
  state: AIState<M>,
): { generationId: string | null; tools: ToolRecord[] } {
  const active = state.active
  const pausing = active?.phase === 'pausing'
  const generation = state.activeGeneration
  return {
    generationId: pausing && generation?.status === 'running' ? generation.generationId : null,
    tools: state.tools.filter(
      (tool) =>
        tool.status === 'cancelled' ||
        (pausing &&
          tool.turnId === active?.turnId &&
          tool.status === 'running' &&
          tool.providerExecuted !== true),
    ),
  }
}

/** Whether a generation's events still belong to the conversation. */
export function isCurrentGeneration<M extends UIMessage>(
  state: AIState<M>,
  generationId: string,
): boolean {
  return (
    state.activeGeneration?.generationId === generationId &&
    state.activeGeneration.status === 'running'
  )
}
