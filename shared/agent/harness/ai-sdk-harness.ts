import { defaultGenerate } from '../model-step/default-generate.ts'
import type { Harness, HarnessStepContext } from './harness.ts'
import type { AiSdkHarnessOptions } from './harness-options.ts'

/**
 * The AI SDK's loop, the first adapter of the port: a step is one
 * `streamText()` call with the tool definitions but no `execute` (the
 * default), or the app's `harness.generate`, which gets the same context a
 * custom generator always got (A2's own fields left out).
 */
export function aiSdkHarness(options: AiSdkHarnessOptions): Harness {
  const { generate, messageMetadata } = options
  return {
    type: 'ai-sdk',
    validatesToolInput: generate === undefined,
    tools: {},
    compactsByDefault: generate === undefined,
    async step(context) {
      if (generate === undefined) return defaultGenerate(context, context.resolved, messageMetadata)
      return { stream: await generate(generateContext(context)) }
    },
  }
}

/** The context a custom `generate` receives: the step's, without the port's own fields. */
function generateContext(context: HarnessStepContext) {
  const { resolved: _resolved, turnInputIds: _inputs, approvals: _approvals, ...rest } = context
  return rest
}
