import type { LanguageModel } from 'ai'
import type { ModelSettings } from '../state/model-settings.ts'
import type { ModelChoice } from './agent-options.ts'

export interface ResolvedModel {
  model: LanguageModel
  /** The Gateway model ID, or the scripted model's `provider/modelId`. */
  modelId: string
  reasoning?: ModelSettings['reasoning']
  providerOptions?: Record<string, Record<string, unknown>>
}

/**
 * A model choice as `streamText` takes it. A Gateway ID stays a string (the
 * AI SDK's default provider, AI Gateway, resolves it); `speed: 'fast'` asks
 * the Gateway for its priority tier.
 */
export function resolveModel(choice: ModelChoice): ResolvedModel {
  if (typeof choice === 'string') return { model: choice, modelId: choice }
  if (isModelSettings(choice)) {
    return {
      model: choice.model,
      modelId: choice.model,
      ...(choice.reasoning === undefined ? {} : { reasoning: choice.reasoning }),
      ...(choice.speed === 'fast'
        ? { providerOptions: { gateway: { serviceTier: 'priority' } } }
        : {}),
    }
  }
  return { model: choice, modelId: `${choice.provider}/${choice.modelId}` }
}

function isModelSettings(choice: ModelChoice): choice is ModelSettings {
  return typeof choice === 'object' && typeof (choice as ModelSettings).model === 'string'
}
