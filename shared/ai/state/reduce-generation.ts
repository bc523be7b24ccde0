import type { UIMessage } from 'ai'
import type { AIEventPayload } from '../events/ai-events.ts'
import type { AIState } from './ai-state.ts'
import { setId } from './id-map.ts'
import { discardStepCalls } from './reduce-tools.ts'
import { applyToActiveResponse, beginStep, endTurn } from './response-helpers.ts'

// Model steps of the active turn. An event for any other turn or attempt
// (a stopped response, a superseded attempt) changes nothing: later events
// cannot reactivate a stopped response.

export function reduceGenerationRequested<M extends UIMessage>(
  state: AIState<M>,
  event: { id: string; index: number; timestamp: number },
  payload: AIEventPayload<'ai.generation.requested', M>,
): AIState<M> {
  const active = state.active
  if (active?.turnId !== payload.turnId) return state
  const { id, index, timestamp } = event
  return {
    ...state,
    active: {
      ...active,
      step: payload.step,
      requestCount: active.requestCount + 1,
      request: { id, index, timestamp },
    },
    activeRequestId: id,
    activeGeneration: null,
  }
}

export function reduceGenerationStarted<M extends UIMessage>(
  state: AIState<M>,
  payload: AIEventPayload<'ai.generation.started', M>,
  index: number,
): AIState<M> {
  const active = state.active
  if (active?.turnId !== payload.turnId || state.activeRequestId !== payload.requestId) return state
  const started = beginStep(state, index)
  return {
    ...started,
    active: { ...active, phase: active.phase === 'pausing' ? 'pausing' : 'generating' },
    starting: false,
    activeRequestId: null,
    activeGeneration: {
      generationId: payload.generationId,
      requestId: payload.requestId,
      responseMessageId: payload.responseMessageId,
      step: payload.step,
      status: 'running',
    },
  }
}

const isRunning = <M extends UIMessage>(state: AIState<M>, generationId: string): boolean =>
  state.activeGeneration?.generationId === generationId &&
  state.activeGeneration.status === 'running'

/** O(chunks): only the response message's slot is touched. */
export function reduceGenerationProgress<M extends UIMessage>(
  state: AIState<M>,
  payload: AIEventPayload<'ai.generation.progress', M>,
  index: number,
): AIState<M> {
  if (!isRunning(state, payload.generationId)) return state
  return applyToActiveResponse(state, index, payload.chunks)
}

export function reduceGenerationCompleted<M extends UIMessage>(
  state: AIState<M>,
  payload: AIEventPayload<'ai.generation.completed', M>,
): AIState<M> {
  const { active, activeGeneration, response } = state
  if (active === null || activeGeneration === null || !isRunning(state, payload.generationId))
    return state
  const pausing = active.phase === 'pausing'
  const success = payload.outcome === 'success'
  const failed = !success && !pausing
  return {
    ...state,
    active: failed
      ? {
          ...active,
          phase: 'failed',
          error:
            payload.error ??
            `The model call ${payload.outcome === 'failed' ? 'failed' : 'was interrupted'}`,
        }
      : { ...active, phase: pausing ? 'pausing' : 'waiting' },
    activeGeneration: {
      ...activeGeneration,
      status: payload.outcome === 'success' ? 'completed' : payload.outcome,
      ...(payload.finishReason === undefined ? {} : { finishReason: payload.finishReason }),
    },
    response: response && !success ? { ...response, uncommittedStep: true } : response,
    calibration: calibrated(state.calibration, payload),
  }
}

function calibrated(
  calibration: Record<string, number>,
  payload: { modelId?: string; estimatedInputTokens?: number; usage?: Record<string, unknown> },
): Record<string, number> {
  const actual = payload.usage?.inputTokens
  const { modelId, estimatedInputTokens: estimate } = payload
  if (modelId === undefined || !estimate || typeof actual !== 'number' || actual <= 0)
    return calibration
  const next = { ...calibration }
  setId(next, modelId, actual / estimate)
  return next
}

/** An incomplete attempt: its request waits for the replacement attempt. */
export function reduceGenerationSuperseded<M extends UIMessage>(
  state: AIState<M>,
  payload: AIEventPayload<'ai.generation.superseded', M>,
): AIState<M> {
  if (state.activeGeneration?.generationId !== payload.generationId) return state
  return {
    ...discardStepCalls(state, payload.generationId),
    activeGeneration: null,
    activeRequestId: payload.requestId,
    response: state.response ? { ...state.response, uncommittedStep: true } : null,
  }
}

export function reduceMessageCompleted<M extends UIMessage>(
  state: AIState<M>,
  payload: AIEventPayload<'ai.message.completed', M>,
): AIState<M> {
  if (state.active?.turnId !== payload.turnId) return state
  return endTurn(state, { stopped: false })
}
