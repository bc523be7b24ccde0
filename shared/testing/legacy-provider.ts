import type {
  LanguageModelV2,
  LanguageModelV2CallOptions,
  LanguageModelV2FinishReason,
  LanguageModelV2StreamPart,
  LanguageModelV3,
  LanguageModelV4,
  LanguageModelV4FinishReason,
  LanguageModelV4StreamPart,
  SharedV2ProviderMetadata,
  SharedV4ProviderMetadata,
} from '@ai-sdk/provider'
import { installDefaultProvider } from './default-provider.ts'
import { type ModelCall, type Script, stepOf, stepStream, withInputTokens } from './model-script.ts'
import { callOfPrompt } from './prompt-call.ts'

// Providers written for older AI SDK specifications still reach apps: the
// SDK runs them in a compatibility mode (`asLanguageModelV4`,
// `asProviderV4`), which converts what they stream. These doubles are such
// providers, answering the same step script as the others, so a test can
// pin what the compatibility mode hands on.

export interface V2Model {
  /** A `specificationVersion: 'v2'` model (AI SDK 5's), streaming v2 parts. */
  model: LanguageModelV2
  /** Every model call, in order. */
  calls: ModelCall[]
  /** Lets the hanging steps finish. */
  release(): void
}

/**
 * A model on the AI SDK's v2 specification (AI SDK 5's providers), which
 * the SDK runs in its compatibility mode: each step's parts are streamed as
 * v2 parts, the finish part with a string `finishReason` and a flat usage
 * (`{ inputTokens, outputTokens, totalTokens }`); parts v2 does not have
 * (files, sources, approvals, provider tool results) are left out. A
 * failing step throws its error. Streaming only (`streamText`).
 *
 * @example
 * const legacy = v2Model([text('Hello from AI SDK 5')])
 * const result = streamText({ model: legacy.model, prompt: 'Hi' })
 */
export function v2Model(script: Script, { modelId = 'v2-model' } = {}): V2Model {
  const calls: ModelCall[] = []
  const hanging = new Set<() => void>()
  const model: LanguageModelV2 = {
    specificationVersion: 'v2',
    provider: 'legacy-v2',
    modelId,
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('v2Model() streams only: call it with streamText')),
    async doStream(options: LanguageModelV2CallOptions) {
      const call = callOfPrompt(modelId, options.prompt, options.tools, options)
      const step = stepOf(script, call, calls.length)
      calls.push(call)
      if ('error' in step) throw new Error(step.error)
      const parts = Array.isArray(step)
        ? withInputTokens(step, JSON.stringify(options.prompt).length)
        : step
      const stream = stepStream(parts, options.abortSignal, (release) => {
        hanging.add(release)
      })
      return { stream: stream.pipeThrough(v2Parts()) }
    },
  }
  return {
    model,
    calls,
    release() {
      for (const release of hanging) release()
      hanging.clear()
    },
  }
}

export interface UnversionedProvider {
  /**
   * The provider as users write one: `{ languageModel }`, without
   * `specificationVersion`, which the AI SDK takes for a v2 provider.
   */
  provider: { languageModel(modelId: string): LanguageModelV4 | LanguageModelV3 | LanguageModelV2 }
  /** The model IDs asked for, in order. */
  modelIds: string[]
  /**
   * Makes model ID strings resolve through this provider: sets the AI SDK's
   * `globalThis.AI_SDK_DEFAULT_PROVIDER`. Returns the function that undoes it.
   */
  install(): () => void
}

/**
 * A default provider without `specificationVersion`, answering every model
 * ID with `model`: what an app writes as
 * `globalThis.AI_SDK_DEFAULT_PROVIDER = { languageModel: (id) => model }`.
 * The AI SDK runs it as a v2 provider, whatever its model's version: a v2
 * model (`v2Model()`) is converted as it should be, but a v4 model (every
 * current provider's, `scriptedModel()`'s) is misread as v2, so its finish
 * part's `finishReason` reaches the UI message stream as an object
 * (`{ unified, raw }`) and its usage's token counts become objects.
 *
 * @example
 * const legacy = unversionedProvider(scriptedModel([text('Hi')]).model)
 * onTestFinished(legacy.install())
 * const result = streamText({ model: 'any/model', prompt: 'Hi' })
 */
export function unversionedProvider(
  model: LanguageModelV4 | LanguageModelV3 | LanguageModelV2,
): UnversionedProvider {
  const modelIds: string[] = []
  const provider = {
    languageModel(modelId: string) {
      modelIds.push(modelId)
      return model
    },
  }
  return { provider, modelIds, install: () => installDefaultProvider(provider) }
}

/** The stream parts of the v4 script as a v2 model streams them. */
function v2Parts(): TransformStream<LanguageModelV4StreamPart, LanguageModelV2StreamPart> {
  return new TransformStream({
    transform(part, controller) {
      const v2 = v2PartOf(part)
      if (v2) controller.enqueue(v2)
    },
  })
}

function v2PartOf(part: LanguageModelV4StreamPart): LanguageModelV2StreamPart | undefined {
  switch (part.type) {
    case 'stream-start':
      // v2's warnings are another shape; a script's are v4's.
      return { type: 'stream-start', warnings: [] }
    case 'finish': {
      const input = part.usage.inputTokens
      const output = part.usage.outputTokens
      return {
        type: 'finish',
        finishReason: v2FinishReason(part.finishReason.unified),
        usage: {
          inputTokens: input.total,
          outputTokens: output.total,
          totalTokens: (input.total ?? 0) + (output.total ?? 0),
          reasoningTokens: output.reasoning,
          cachedInputTokens: input.cacheRead,
        },
      }
    }
    case 'tool-call':
      return {
        type: 'tool-call',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        input: part.input,
      }
    case 'text-start':
    case 'text-delta':
    case 'text-end':
    case 'reasoning-start':
    case 'reasoning-delta':
    case 'reasoning-end':
    case 'tool-input-start':
    case 'tool-input-delta':
    case 'tool-input-end': {
      const { providerMetadata, ...rest } = part
      return providerMetadata ? { ...rest, providerMetadata: v2Metadata(providerMetadata) } : rest
    }
    case 'response-metadata':
    case 'raw':
    case 'error':
      return part
    default:
      return undefined
  }
}

/** The same metadata as v2 types it: JSON, where v4's admits `undefined` members. */
function v2Metadata(metadata: SharedV4ProviderMetadata): SharedV2ProviderMetadata {
  return JSON.parse(JSON.stringify(metadata))
}

function v2FinishReason(
  unified: LanguageModelV4FinishReason['unified'],
): LanguageModelV2FinishReason {
  return unified === 'interrupted' ? 'other' : unified
}
