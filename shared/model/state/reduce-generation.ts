import type { UIMessage } from 'ai'
import type { AIEventPayload } from '../events/ai-events.ts'
import { type ActiveTurn, type AIState, generationOf, requestOf } from './ai-state.ts'
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
      generation: { status: 'requested', requestId: id },
    },
  }
}

export function reduceGenerationStarted<M extends UIMessage>(
  state: AIState<M>,
  payload: AIEventPayload<'ai.generation.started', M>,
  index: number,
): AIState<M> {
  const active = state.active
  if (active?.turnId !== payload.turnId || requestOf(active) !== payload.requestId) return state
  const started = beginStep(state, index)
  return {
    ...started,
    active: {
      ...active,
      phase: active.phase === 'pausing' ? 'pausing' : 'generating',
      ...(active.version === undefined && payload.version !== undefined
        ? { version: payload.version }
        : {}),
      generation: {
        generationId: payload.generationId,
        requestId: payload.requestId,
        responseMessageId: payload.responseMessageId,
        step: payload.step,
        attempt: payload.attempt,
        status: 'running',
        ...(payload.version === undefined ? {} : { version: payload.version }),
      },
    },
  }
}

const isRunning = <M extends UIMessage>(state: AIState<M>, generationId: string): boolean => {
  const generation = generationOf(state.active)
  return generation?.generationId === generationId && generation.status === 'running'
}

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
  const { active } = state
  const generation = generationOf(active)
  if (active === null || generation === null || !isRunning(state, payload.generationId))
    return state
  if (payload.outcome !== 'success') {
    const error =
      payload.error ??
      `The model call ${payload.outcome === 'failed' ? 'failed' : 'was interrupted'}`
    return {
      ...failedStep(state, error, payload.outcome),
      calibration: calibrated(state.calibration, payload),
    }
  }
  return {
    ...state,
    active: {
      ...active,
      phase: active.phase === 'pausing' ? 'pausing' : 'waiting',
      generation: {
        ...generation,
        status: 'completed',
        ...(payload.finishReason === undefined ? {} : { finishReason: payload.finishReason }),
      },
    },
    calibration: calibrated(state.calibration, payload),
  }
}

/**
 * The active step ended without success: the turn fails with `error` and
 * waits for `retry()` (a pausing turn just goes on pausing), the step's
 * output stays uncommitted, and nothing is due until then.
 */
function failedStep<M extends UIMessage>(
  state: AIState<M>,
  error: string,
  outcome: 'failed' | 'interrupted',
): AIState<M> {
  const { active, response } = state
  if (active === null) return state
  // A request no attempt served is dropped with the step.
  const attempt = generationOf(active)
  const ended: ActiveTurn = {
    ...active,
    generation: attempt === null ? null : { ...attempt, status: outcome },
  }
  return {
    ...state,
    active: active.phase === 'pausing' ? ended : { ...ended, phase: 'failed', error },
    response: response ? { ...response, uncommittedStep: true } : response,
  }
}

/**
 * A lane gave up on its work. When that work is the active turn's model step
 * (the generation lane, naming the request it served), the turn fails as a
 * failed call would, so it shows its error and offers `retry()` instead of
 * waiting forever on a step no worker will run again.
 */
export function reduceDeadLettered<M extends UIMessage>(
  state: AIState<M>,
  payload: AIEventPayload<'ai.handler.dead-lettered', M>,
  index: number,
): AIState<M> {
  const recorded = {
    ...state,
    deadLetters: [...state.deadLetters.slice(-19), { ...payload, index }],
  }
  const { requestId } = payload
  if (payload.lane !== 'generation' || requestId === undefined) return recorded
  const attempt = generationOf(state.active)
  const served =
    requestOf(state.active) === requestId ||
    (attempt?.requestId === requestId && attempt.status === 'running')
  if (!served) return recorded
  return failedStep(
    recorded,
    `The model step was given up after ${payload.attempts} attempts: ${payload.error}`,
    'failed',
  )
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
  const active = state.active
  if (active === null || generationOf(active)?.generationId !== payload.generationId) return state
  return {
    ...discardStepCalls(state, payload.generationId),
    active: { ...active, generation: { status: 'requested', requestId: payload.requestId } },
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
