import type { UIMessage } from 'ai'
import type { AIEventInput } from '../events/ai-events.ts'
import { SERIAL_TOOL_KEY } from '../ids/claim-keys.ts'
import { derivedId, sessionScopedId, toolCallKey } from '../ids/ids.ts'
import type { AIState, ToolRecord } from '../state/ai-state.ts'
import { runnableTools } from './due-work.ts'
import { stepToServe } from './generation-attempt.ts'

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
 * - For the tools lane, an error result for each call it was running: the
 *   model's next step sees the tool failed, as it would see a tool error.
 *
 * @example
 * deadLetterEvents(state, { sessionId, lane: 'generation', error: 'throttled', attempts: 5, occurrence: messageId })
 */
export function deadLetterEvents<M extends UIMessage>(
  state: AIState<M>,
  givenUp: GivenUp,
): AIEventInput<M>[] {
  const { sessionId, lane, key, attempts, occurrence } = givenUp
  const requestId = lane === 'generation' ? stepToServe(state)?.requestId : undefined
  const error = clipped(givenUp.error)
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
