import type { UIMessage } from 'ai'
import type { AIEventInput } from '../events/ai-events.ts'
import { derivedId, sessionScopedId } from '../ids/ids.ts'
import type { AIState } from '../state/ai-state.ts'
import { dueGeneration } from './due-work.ts'

/**
 * A compaction that was running when its generation stopped (a crash, Stop,
 * a newer attempt) was cut short, and is redone by the next step.
 */
export function compactionInterrupted<M extends UIMessage>(state: AIState<M>): AIEventInput<M>[] {
  if (state.compaction?.status !== 'running') return []
  return [
    {
      id: derivedId('compaction-interrupted', state.compaction.compactionId),
      type: 'ai.compaction.failed',
      payload: { compactionId: state.compaction.compactionId, status: 'interrupted' },
    },
  ]
}

/** The model step a worker should serve: a due request, or a running one whose worker vanished. */
export interface StepToServe {
  requestId: string
  /** The running attempt this one takes over, when its worker vanished. */
  replaces?: string
}

export function stepToServe<M extends UIMessage>(state: AIState<M>): StepToServe | null {
  const due = dueGeneration(state)
  if (due) return { requestId: due.requestId }
  const running = state.activeGeneration
  if (running?.status === 'running' && state.active?.phase !== 'pausing') {
    return { requestId: running.requestId, replaces: running.generationId }
  }
  return null
}

/** The generation ID of an attempt at a request: each claim attempt is a new generation. */
export const attemptGenerationId = (requestId: string, attempt: number): string =>
  derivedId('gen', requestId, attempt)

/**
 * The events that open an attempt at a model step, in one append: the
 * attempt it replaces is superseded (and a compaction that attempt was
 * running is cut short), the model's catalog metadata is requested when
 * compaction will want it, and the attempt starts.
 */
export function attemptOpening<M extends UIMessage>(
  state: AIState<M>,
  attempt: {
    /** The session's ID: a model's metadata is requested once per session. */
    sessionId: string
    serve: StepToServe
    generationId: string
    attempt: number
    modelId?: string
    /** The agent version running the attempt: recorded on its start. */
    version?: string
    /** Request the model's catalog metadata (its first generation, compaction on). */
    requestMetadata: boolean
  },
): AIEventInput<M>[] {
  const active = state.active
  if (active === null) return []
  const { serve, generationId, modelId } = attempt
  const step =
    state.activeGeneration?.requestId === serve.requestId
      ? state.activeGeneration.step
      : active.step
  const events: AIEventInput<M>[] = []
  if (serve.replaces !== undefined) {
    events.push(...compactionInterrupted(state), {
      id: derivedId('superseded', serve.replaces),
      type: 'ai.generation.superseded',
      payload: {
        generationId: serve.replaces,
        requestId: serve.requestId,
        reason: `attempt ${attempt.attempt} took over`,
      },
    })
  }
  if (attempt.requestMetadata && modelId !== undefined) {
    events.push({
      id: sessionScopedId('model-metadata', attempt.sessionId, modelId),
      type: 'ai.model.metadata.requested',
      payload: { modelId },
    })
  }
  events.push({
    id: derivedId('started', generationId),
    type: 'ai.generation.started',
    payload: {
      generationId,
      requestId: serve.requestId,
      turnId: active.turnId,
      responseMessageId: active.responseMessageId,
      step,
      attempt: attempt.attempt,
      ...(modelId === undefined ? {} : { modelId }),
      ...(attempt.version === undefined ? {} : { version: attempt.version }),
    },
  })
  return events
}

export interface StepOutcome {
  outcome: 'success' | 'failed' | 'interrupted'
  finishReason?: string
  error?: string
  usage?: Record<string, unknown>
  modelId?: string
  estimatedInputTokens?: number
}

/** The fact that closes an attempt at a model step. */
export function generationCompleted<M extends UIMessage>(
  generationId: string,
  requestId: string,
  outcome: StepOutcome,
): AIEventInput<M> {
  return {
    id: derivedId('gen-completed', generationId),
    type: 'ai.generation.completed',
    payload: { generationId, requestId, ...outcome },
  }
}
