import type { UIMessage } from 'ai'
import type { AIEventPayload } from '../events/ai-events.ts'
import { toolClaimKey } from '../ids/claim-keys.ts'
import type { AIState, ToolRecord } from './ai-state.ts'

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
  // A cancelled call's worker may record a step before its fence closes: the
  // call never runs again, so the step is never read.
  if (state.tools.some((tool) => tool.status === 'cancelled' && toolClaimKey(tool) === scope))
    return state
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

/** The statuses a call runs again from: a retry or recovery (`running`), Resume (`interrupted`). */
const MAY_RUN: ReadonlySet<ToolRecord['status']> = new Set(['running', 'interrupted'])

/**
 * A call's steps are read only by a later run of the same call. Once the
 * call leaves the statuses it can run from, it never runs again: its
 * terminal result is recorded (output, error, denial), or its turn ended or
 * its model step was discarded (Stop, a steer, a hand-off, a superseded
 * step), which cancels it or drops it. Its steps go then, not with the
 * state forever (and its snapshots).
 */
export function withoutStepsOfEndedCalls<M extends UIMessage>(
  before: AIState<M>,
  after: AIState<M>,
): AIState<M> {
  if (after.tools === before.tools || Object.keys(after.durableSteps).length === 0) return after
  const ended = before.tools
    .filter((tool) => MAY_RUN.has(tool.status))
    .filter((tool) => {
      const now = after.tools.find(
        (candidate) =>
          candidate.toolCallId === tool.toolCallId && candidate.generationId === tool.generationId,
      )
      return now === undefined || !MAY_RUN.has(now.status)
    })
    .map(toolClaimKey)
    .filter((scope) => after.durableSteps[scope] !== undefined)
  if (ended.length === 0) return after
  return {
    ...after,
    durableSteps: Object.fromEntries(
      Object.entries(after.durableSteps).filter(([scope]) => !ended.includes(scope)),
    ),
  }
}
