import type { LanguageModelV4 } from '@ai-sdk/provider'
import type { Faults } from './faults.ts'
import type { Random } from './random.ts'
import { workContext } from './sim-process.ts'
import type { World } from './world.ts'

/** The Gateway model ID a simulation's agent uses when it runs on a model ID string. */
export const SIM_GATEWAY_MODEL = 'openai/gpt-5.6-terra'

/**
 * The AI SDK's default provider while a simulation runs (what AI Gateway is
 * in production), so the agent may use a model ID string, with what comes
 * with one: the metadata lane's catalog lookup and automatic compaction.
 * Each call goes to the model of the process making it.
 */
export function gatewayProvider(models: ReadonlyMap<number, LanguageModelV4>): unknown {
  const modelOf = (): LanguageModelV4 => {
    const owner = workContext.getStore()?.owner
    const model = owner === undefined ? undefined : models.get(owner)
    if (!model) throw new Error('A model call outside any simulated process')
    return model
  }
  const model: LanguageModelV4 = {
    specificationVersion: 'v4',
    provider: 'gateway',
    modelId: SIM_GATEWAY_MODEL,
    supportedUrls: {},
    doGenerate: (options) => modelOf().doGenerate(options),
    doStream: (options) => modelOf().doStream(options),
  }
  return {
    specificationVersion: 'v4',
    languageModel: () => model,
    embeddingModel: () => {
      throw new Error('no embedding model in a simulation')
    },
    imageModel: () => {
      throw new Error('no image model in a simulation')
    },
  }
}

/**
 * The Gateway model catalog, as one process reaches it: a call into the
 * world answering the simulated model's limits, or a 503 now and then when
 * the plan has model errors.
 */
export function catalogFetch(
  world: World,
  owner: number,
  faults: Faults,
  latency: Random,
  contextWindow: number,
): typeof globalThis.fetch {
  return (() =>
    world.call(owner, 'catalog fetch', latency.between(10, 200), () => {
      if (faults.strikes('model.error')) return new Response('unavailable', { status: 503 })
      return Response.json({
        data: [{ id: SIM_GATEWAY_MODEL, context_window: contextWindow, max_tokens: 200 }],
      })
    })) as typeof globalThis.fetch
}
