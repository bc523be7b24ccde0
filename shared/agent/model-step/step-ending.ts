import type { StepOutcome } from '../../model/controller/generation-attempt.ts'
import { clipped } from './failure-reason.ts'
import type { StreamedStep } from './step-stream.ts'

/**
 * How a step ends once its model stream did:
 * - `fail`: the stream failed before it recorded a call of the agent's
 *   tools; the turn fails with the reason, and Retry asks the model again.
 * - `finish-on-recorded-calls`: it failed after recording one. The calls
 *   are the step's, as a takeover finds them (takeover-rule.ts): their tools
 *   run, or ran, and failing the step would have Retry ask the model again,
 *   for the same intent, under new calls: an email sent twice. The step ends
 *   on its calls, saying the stream's `error`; the next step sees their
 *   results.
 * - `finish`: the stream ended as the model meant it to.
 */
export type StepEnding =
  | { kind: 'fail'; error: string }
  | { kind: 'finish-on-recorded-calls'; error: string; outcome: StepOutcome }
  | { kind: 'finish'; outcome: StepOutcome }

/** Pure: the step's ending from what its stream came to and what it was sent. */
export function stepEnding(
  streamed: StreamedStep,
  step: { modelId: string; estimatedInputTokens: number },
): StepEnding {
  if (streamed.error !== undefined && !streamed.recordedCalls)
    return { kind: 'fail', error: streamed.error }
  if (streamed.error !== undefined) {
    return {
      kind: 'finish-on-recorded-calls',
      error: streamed.error,
      outcome: {
        outcome: 'success',
        finishReason: 'tool-calls',
        error: clipped(streamed.error),
        ...(streamed.usage ? { usage: streamed.usage } : {}),
        modelId: step.modelId,
        estimatedInputTokens: step.estimatedInputTokens,
      },
    }
  }
  return {
    kind: 'finish',
    outcome: {
      outcome: 'success',
      ...(streamed.finishReason === undefined ? {} : { finishReason: streamed.finishReason }),
      ...(streamed.usage ? { usage: streamed.usage } : {}),
      modelId: step.modelId,
      estimatedInputTokens: step.estimatedInputTokens,
    },
  }
}
