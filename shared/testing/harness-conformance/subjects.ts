import type { HarnessOptions } from '../../agent/harness/harness-options.ts'
import { gatewayDouble } from '../gateway-double.ts'
import { callOfPrompt, type PromptMessage } from '../prompt-call.ts'
import { scriptedModel } from '../scripted-model.ts'
import type { HarnessSubject } from './conformance-kit.ts'

// The subjects of a loop that runs on the agent's model: on the AI SDK's
// scripted model, or on a Gateway model ID sent to the Gateway double.

/**
 * A harness on `scriptedModel()`, the AI SDK's own test model: the subject
 * for a loop that runs on the agent's AI SDK model (the AI SDK's, Pi's).
 *
 * @example
 * describeHarnessConformance('pi', scriptedSubject(piHarness()), { describe, it, expect })
 */
export function scriptedSubject(harness: HarnessOptions): HarnessSubject {
  return {
    a2Tools: true,
    setUp(script) {
      const scripted = scriptedModel([...script])
      return {
        model: scripted.model,
        harness,
        calls: () =>
          scripted.calls.map((call) =>
            callOfPrompt('script', call.prompt as PromptMessage[], call.tools, call),
          ),
        release: () => scripted.release(),
      }
    },
  }
}

/**
 * A harness on `gatewayDouble()`: the agent's model is a Gateway model ID
 * (`openai/gpt-5.6-terra`) that the real `@ai-sdk/gateway` provider sends
 * to a local double of AI Gateway. Compaction is off, so the catalog stays
 * out of the turn's sequence.
 *
 * @example
 * describeHarnessConformance('pi', gatewaySubject(piHarness()), { describe, it, expect })
 */
export function gatewaySubject(harness: HarnessOptions): HarnessSubject {
  return {
    a2Tools: true,
    async setUp(script) {
      const gateway = await gatewayDouble({ script: [...script] })
      const undo = gateway.install()
      return {
        model: 'openai/gpt-5.6-terra',
        harness: { ...harness, compaction: false },
        calls: () => gateway.calls,
        release: () => gateway.release(),
        async close() {
          undo()
          await gateway.close()
        },
      }
    },
  }
}
