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

/**
 * Whether taking over a vanished attempt ends its step where it stopped,
 * instead of running the step again: once the attempt recorded a call of a
 * tool A2 runs, that call is a durable fact. Its tool may be running or done
 * in another process (on AWS the tools lane has its own functions), and a
 * step run again would not see it: the model would ask again, and the tool
 * would run twice, with a new call's idempotency key. So the takeover closes
 * the step with the calls it recorded (its text so far stays), and the next
 * step sees them with their results. A step that recorded none is run again.
 */
export function closesReplacedStep<M extends UIMessage>(
  state: AIState<M>,
  serve: StepToServe,
): serve is StepToServe & { replaces: string } {
  return (
    serve.replaces !== undefined &&
    state.tools.some(
      (tool) => tool.generationId === serve.replaces && tool.providerExecuted !== true,
    )
  )
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
