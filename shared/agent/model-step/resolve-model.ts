import type { ProviderOptions } from '@ai-sdk/provider-utils'
import type { LanguageModel } from 'ai'
import type { ModelSettings } from '../../model/state/model-settings.ts'
import { bedrockModelId } from './bedrock-model-id.ts'
import { OFFLINE_MODEL_ID, OFFLINE_MODEL_NAME, offlineModel } from './offline-model.ts'

/**
 * A model ID (AI Gateway's `provider/model`, `bedrock:<model or inference
 * profile ID>` for Amazon Bedrock with the environment's AWS credentials, or
 * `offline` for the offline demo model: no key, no network),
 * `ModelSettings`, or an AI SDK model object (any provider's, e.g.
 * `@ai-sdk/amazon-bedrock`'s).
 */
export type ModelChoice = string | ModelSettings | Exclude<LanguageModel, string>

export interface ResolvedModel {
  model: LanguageModel
  /**
   * The model's identity in the log (calibration, metadata): the Gateway
   * model ID, or `provider/modelId` of a model object; a `bedrock:` ID is
   * named as its model object would be (`amazon-bedrock/<id>`).
   */
  modelId: string
  /** Whether AI Gateway serves it (a model ID), so its catalog knows its limits. */
  gateway: boolean
  reasoning?: ModelSettings['reasoning']
  providerOptions?: ProviderOptions
}

/** The AI SDK Bedrock provider's name for itself (`LanguageModelV4.provider`). */
const BEDROCK_PROVIDER = 'amazon-bedrock'

/**
 * A model choice as `streamText` takes it. A Gateway ID stays a string (the
 * AI SDK's default provider, AI Gateway, resolves it); a `bedrock:` ID
 * becomes a model of the AI SDK's Bedrock provider, which signs with the
 * AWS credentials of the environment (a Lambda function's role) in
 * `AWS_REGION`. `speed: 'fast'` asks for the priority tier (AI Gateway's or
 * Bedrock's).
 */
export async function resolveModel(choice: ModelChoice): Promise<ResolvedModel> {
  checkModelChoice(choice)
  if (typeof choice === 'string') return modelFromId(choice)
  if (isModelSettings(choice)) {
    const resolved = await modelFromId(choice.model)
    const provider = resolved.gateway ? 'gateway' : 'bedrock'
    return {
      ...resolved,
      ...(choice.reasoning === undefined ? {} : { reasoning: choice.reasoning }),
      ...(choice.speed === 'fast'
        ? { providerOptions: { [provider]: { serviceTier: 'priority' } } }
        : {}),
    }
  }
  return {
    model: choice,
    modelId: `${choice.provider}/${choice.modelId}`,
    gateway: choice.provider.startsWith('gateway'),
  }
}

async function modelFromId(id: string): Promise<ResolvedModel> {
  if (id === OFFLINE_MODEL_ID) {
    return { model: offlineModel(), modelId: OFFLINE_MODEL_NAME, gateway: false }
  }
  const bedrockId = bedrockModelId(id)
  if (bedrockId === undefined) return { model: id, modelId: id, gateway: true }
  // Loaded on first use: an agent on AI Gateway never evaluates it.
  const { bedrock } = await import('@ai-sdk/amazon-bedrock')
  return { model: bedrock(bedrockId), modelId: `${BEDROCK_PROVIDER}/${bedrockId}`, gateway: false }
}

/**
 * Throws a `TypeError` saying what a model may be when `choice` is none of
 * them: caught where the options are read (or where a resolver's answer is),
 * not later as "Cannot read properties of undefined (reading 'startsWith')".
 * The likeliest mistake, a wrapper that holds a model (`scriptedModel()`'s
 * `{ model, calls }`), is named with its fix.
 */
export function checkModelChoice(choice: unknown): asserts choice is ModelChoice {
  if (typeof choice === 'string') {
    if (choice.trim() === '') throw new TypeError(`agent({ model }): ${MODEL_FORMS}; got ""`)
    return
  }
  if (typeof choice === 'object' && choice !== null) {
    const { model, provider, modelId } = choice as Record<string, unknown>
    if (typeof model === 'string') return
    if (typeof provider === 'string' && typeof modelId === 'string') return
    if (typeof model === 'object' && model !== null && 'modelId' in model) {
      throw new TypeError(
        `agent({ model }): ${MODEL_FORMS}; got an object that holds one under .model (as scriptedModel() returns { model, calls }): pass its .model`,
      )
    }
    throw new TypeError(
      `agent({ model }): ${MODEL_FORMS}; got an object with ${Object.keys(choice).length > 0 ? `keys ${Object.keys(choice).join(', ')}` : 'no keys'}`,
    )
  }
  throw new TypeError(
    `agent({ model }): ${MODEL_FORMS}; got ${choice === null ? 'null' : typeof choice}`,
  )
}

const MODEL_FORMS =
  "a model is a model ID ('openai/gpt-5.6-terra' through AI Gateway, 'bedrock:<model ID>', 'offline'), { model: '<model ID>', reasoning, speed }, an AI SDK language model (with provider and modelId), or a function answering one of these"

function isModelSettings(choice: ModelChoice): choice is ModelSettings {
  return typeof choice === 'object' && typeof (choice as ModelSettings).model === 'string'
}
