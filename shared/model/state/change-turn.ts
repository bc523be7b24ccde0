import type { UIMessage } from 'ai'
import type { ControlChange } from '../events/controller-events.ts'
import { newActiveResponse } from './active-response.ts'
import { type AIState, generationOf, requestOf } from './ai-state.ts'
import { discardStepCalls } from './reduce-tools.ts'

// Accepted changes to the active turn and the session's pause: start, handoff,
// stop, retry, paused, pause and resume. A change naming a turn that is no
// longer active leaves the state as it is.

type ChangeOf<O extends ControlChange['op']> = Extract<ControlChange, { op: O }>

export function startTurn<M extends UIMessage>(
  state: AIState<M>,
  change: ChangeOf<'turn.start'>,
): AIState<M> {
  return {
    ...state,
    active: {
      turnId: change.turnId,
      inputId: change.inputId,
      contextInputIds: change.contextInputIds,
      phase: 'starting',
      responseMessageId: change.responseMessageId,
      step: 0,
      handoff: false,
      requestCount: 0,
      generation: null,
    },
    response: newActiveResponse(change.turnId, change.responseMessageId),
  }
}

export function retryTurn<M extends UIMessage>(
  state: AIState<M>,
  change: ChangeOf<'turn.retry'>,
): AIState<M> {
  if (state.active?.turnId !== change.turnId) return state
  const { error: _error, ...active } = state.active
  const failed = generationOf(active)?.generationId
  // The failed step's calls no longer feed this turn.
  const discarded = failed === undefined ? state : discardStepCalls(state, failed)
  // The failed attempt goes; a request no attempt has served yet stays.
  const generation = active.generation?.status === 'requested' ? active.generation : null
  return {
    ...discarded,
    active: { ...active, phase: 'starting', retryId: change.retryId, generation },
  }
}

export function markTurnPaused<M extends UIMessage>(
  state: AIState<M>,
  change: ChangeOf<'turn.paused'>,
): AIState<M> {
  if (state.active?.turnId !== change.turnId) return state
  // A request that never started is cancelled with the rest of the work.
  return {
    ...state,
    active: {
      ...state.active,
      phase: 'paused',
      generation: requestOf(state.active) === null ? state.active.generation : null,
    },
  }
}

export function pauseSession<M extends UIMessage>(
  state: AIState<M>,
  change: ChangeOf<'pause'>,
  commandId: string | undefined,
  timestamp: number,
): AIState<M> {
  const active = state.active
  const pausing =
    change.when === 'now' &&
    active !== null &&
    active.phase !== 'failed' &&
    active.phase !== 'paused'
  return {
    ...state,
    inbox: { ...state.inbox, paused: true },
    active: pausing
      ? { ...active, phase: 'pausing', pausedBy: commandId ?? 'pause', pausingSince: timestamp }
      : active,
  }
}

export function resumeSession<M extends UIMessage>(state: AIState<M>): AIState<M> {
  const active = state.active
  const held = active !== null && (active.phase === 'paused' || active.phase === 'pausing')
  return {
    ...state,
    inbox: { ...state.inbox, paused: false },
    active: held ? { ...active, phase: 'waiting' } : active,
    // Interrupted tools run again, unless steering takes the turn over.
    tools:
      held && !active.handoff
        ? state.tools.map((tool) =>
            tool.turnId === active.turnId && tool.status === 'interrupted'
              ? { ...tool, status: 'running' }
              : tool,
          )
        : state.tools,
  }
}
