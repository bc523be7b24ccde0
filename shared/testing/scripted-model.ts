import type { LanguageModelV4CallOptions } from '@ai-sdk/provider'
import { MockLanguageModelV4 } from 'ai/test'
import { type Step, stepStream, withInputTokens } from './model-script.ts'

export type { Step } from './model-script.ts'
/** @internal The step builders, at hand for the tests (the package exports them from model-script.ts). */
export { text, toolCalls } from './model-script.ts'

export interface ScriptedModel {
  model: MockLanguageModelV4
  /** The prompts the model was called with, one per call. */
  calls: MockLanguageModelV4['doStreamCalls']
  /** Lets a hanging step finish (or its abort reach it). */
  release(): void
}

/**
 * A scripted model: the AI SDK's own test model, answering each model call
 * with the next step of the script (or the step a function picks from the
 * call's options). Steps are built with `text()`, `toolCalls()` and
 * `reasoning()`. To run the same script through a real provider's code,
 * use `gatewayDouble()` or `bedrockDouble()`.
 */
export function scriptedModel(
  steps: Step[] | ((options: LanguageModelV4CallOptions) => Step | undefined),
  { chunkDelayMs = 0 }: { chunkDelayMs?: number } = {},
): ScriptedModel {
  let next = 0
  let release: () => void = () => {}
  const model = new MockLanguageModelV4({
    provider: 'scripted',
    modelId: 'script',
    doStream: async (options) => {
      const step = typeof steps === 'function' ? steps(options) : steps[next]
      next++
      if (step === undefined) throw new Error(`The script has no step ${next}`)
      if ('error' in step) throw new Error(step.error)
      const parts = Array.isArray(step)
        ? withInputTokens(step, JSON.stringify(options.prompt).length)
        : step
      const stream = stepStream(
        parts,
        options.abortSignal,
        (done) => {
          release = done
        },
        { chunkDelayMs },
      )
      return { stream }
    },
  })
  return { model, calls: model.doStreamCalls, release: () => release() }
}
