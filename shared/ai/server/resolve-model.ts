import type { ProviderOptions } from '@ai-sdk/provider-utils'
import type { LanguageModel } from 'ai'
import type { ModelSettings } from '../state/model-settings.ts'
import type { ModelChoice } from './agent-options.ts'

export interface ResolvedModel {
  model: LanguageModel
  /** The Gateway model ID, or the model object's `provider/modelId`. */
  modelId: string
  /** Whether AI Gateway serves it (a model ID), so its catalog knows its limits. */
  gateway: boolean
  reasoning?: ModelSettings['reasoning']
  providerOptions?: ProviderOptions
}

/**
 * A model choice as `streamText` takes it. A Gateway ID stays a string (the
 * AI SDK's default provider, AI Gateway, resolves it); `speed: 'fast'` asks
 * the Gateway for its priority tier.
 */
export function resolveModel(choice: ModelChoice): ResolvedModel {
  if (typeof choice === 'string') return { model: choice, modelId: choice, gateway: true }
  if (isModelSettings(choice)) {
    return {
      model: choice.model,
      modelId: choice.model,
      gateway: true,
      ...(choice.reasoning === undefined ? {} : { reasoning: choice.reasoning }),
      ...(choice.speed === 'fast'
        ? { providerOptions: { gateway: { serviceTier: 'priority' } } }
        : {}),
    }
  }
  return {
    model: choice,
    modelId: `${choice.provider}/${choice.modelId}`,
    gateway: choice.provider.startsWith('gateway'),
  }
}

function isModelSettings(choice: ModelChoice): choice is ModelSettings {
  return typeof choice === 'object' && typeof (choice as ModelSettings).model === 'string'
}
