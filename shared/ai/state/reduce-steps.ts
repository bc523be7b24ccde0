import type { UIMessage } from 'ai'
import { toolClaimKey } from '../controller/claim-keys.ts'
import type { AIEventPayload } from '../events/ai-events.ts'
import type { AIState } from './ai-state.ts'

const HANDLER_SCOPE = 'handler:'

/**
 * Records a durable step's result under its scope. The handlers lane runs one
 * handler at a time, so a handler's step ends the steps of every earlier one.
 */
export function reduceStepCompleted<M extends UIMessage>(
  state: AIState<M>,
  payload: AIEventPayload<'ai.step.completed', M>,
): AIState<M> {
  const { scope, name } = payload
  const steps = scope.startsWith(HANDLER_SCOPE)
    ? Object.fromEntries(
        Object.entries(state.durableSteps).filter(
          ([other]) => other === scope || !other.startsWith(HANDLER_SCOPE),
        ),
      )
    : state.durableSteps
  if (steps[scope]?.[name] !== undefined) return state
  const step = 'output' in payload ? { output: payload.output } : {}
  return { ...state, durableSteps: { ...steps, [scope]: { ...steps[scope], [name]: step } } }
}

/** A call's terminal result ends its steps: nothing runs it again. */
export function withoutCallSteps<M extends UIMessage>(
  state: AIState<M>,
  call: { generationId: string; toolCallId: string },
): AIState<M> {
  const scope = toolClaimKey(call)
  if (state.durableSteps[scope] === undefined) return state
  const { [scope]: _ended, ...steps } = state.durableSteps
  return { ...state, durableSteps: steps }
}
