import type { UIMessage } from 'ai'
import type { AIEventInput } from '../events/ai-events.ts'
import { SERIAL_TOOL_KEY } from '../ids/claim-keys.ts'
import { derivedId, sessionScopedId, toolCallKey } from '../ids/ids.ts'
import type { AIState, ToolRecord } from '../state/ai-state.ts'
import { runnableTools } from './due-work.ts'
import { generationCompleted, stepToServe } from './generation-attempt.ts'

/** How much of a failure's message a dead letter keeps: enough to read, never too much to store. */
const MAX_DEAD_LETTER_ERROR_LENGTH = 2_000

/** A lane's wake-up that kept failing, and how. */
export interface GivenUp {
  sessionId: string
  lane: string
  key?: string
  error: string
  attempts: number
  /** What makes this giving-up one event: the same occurrence is recorded once. */
  occurrence: string
}

/**
 * What a lane giving up on its work after its attempts records, so nothing
 * waits on work no worker will run again:
 * - `ai.handler.dead-lettered`, always. The generation lane's names the
 *   model step it was serving, and the fold fails that turn (see
 *   `reduceDeadLettered`), which shows its error and offers `retry()`.
 *   But a running attempt that recorded calls of tools A2 runs ends its
 *   step on them instead, as a takeover would (takeover-rule.ts): their
 *   tools run, or ran, and a failed turn's Retry would ask the model
 *   again for the same intent under new calls (a charge made twice).
 * - For the tools lane, an error result for each call it was running: the
 *   model's next step sees the tool failed, as it would see a tool error.
 *
 * @example
 * deadLetterEvents(state, { sessionId, lane: 'generation', error: 'throttled', attempts: 5, occurrence: messageId })
 */
export function deadLetterEvents<M extends UIMessage>(
  state: AIState<M>,
  givenUp: GivenUp,
  /** `false`: fail the step even on recorded calls (when ending it on them could not be written). */
  { endOnCalls = true }: { endOnCalls?: boolean } = {},
): AIEventInput<M>[] {
  const { sessionId, lane, key, attempts, occurrence } = givenUp
  const error = clipped(givenUp.error)
  const onCalls =
    lane === 'generation' && endOnCalls ? stepOnRecordedCalls(state, attempts, error) : []
  const requestId =
    lane === 'generation' && onCalls.length === 0 ? stepToServe(state)?.requestId : undefined
  const deadLetter: AIEventInput<M> = {
    id: sessionScopedId('dead-letter', sessionId, lane, key ?? '', occurrence),
    type: 'ai.handler.dead-lettered',
    payload: {
      lane,
      ...(key ? { key } : {}),
      ...(requestId === undefined ? {} : { requestId }),
      error,
      attempts,
    },
  }
  const tools = lane === 'tools' && key !== undefined ? callsOf(state, key) : []
  return [
    deadLetter,
    ...onCalls,
    ...tools.map(
      (tool): AIEventInput<M> => ({
        id: derivedId('tool-given-up', tool.generationId, tool.toolCallId, occurrence),
        type: 'ai.tool.result',
        payload: {
          toolCallId: tool.toolCallId,
          generationId: tool.generationId,
          messageId: tool.messageId,
          outcome: 'error',
          errorText: `A2 gave up running the tool after ${attempts} attempts: ${error}`,
        },
      }),
    ),
  ]
}

/**
 * The running attempt's step ended on the calls it recorded of tools A2
 * runs, when it recorded any: none, or no attempt running, leaves the
 * step to fail.
 */
function stepOnRecordedCalls<M extends UIMessage>(
  state: AIState<M>,
  attempts: number,
  error: string,
): AIEventInput<M>[] {
  const generation = state.activeGeneration
  if (generation?.status !== 'running') return []
  const recorded = state.tools.some(
    (tool) => tool.generationId === generation.generationId && tool.providerExecuted !== true,
  )
  if (!recorded) return []
  return [
    generationCompleted(generation.generationId, generation.requestId, {
      outcome: 'success',
      finishReason: 'tool-calls',
      error: `A2 gave up on the model step after ${attempts} attempts, after it had called its tools: ${error}`,
    }),
  ]
}

/** The calls a tools-lane wake-up ran: its call, or every runnable one in the serial lane. */
function callsOf<M extends UIMessage>(state: AIState<M>, key: string): ToolRecord[] {
  const runnable = runnableTools(state)
  return key === SERIAL_TOOL_KEY ? runnable : runnable.filter((tool) => toolCallKey(tool) === key)
}

function clipped(error: string): string {
  return error.length > MAX_DEAD_LETTER_ERROR_LENGTH
    ? `${error.slice(0, MAX_DEAD_LETTER_ERROR_LENGTH)}…`
    : error
}
