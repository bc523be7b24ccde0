import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { resolveModel } from '../../../../shared/ai/server/resolve-model.ts'

const SONNET_US = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0'

describe('resolveModel', () => {
  it('leaves an AI Gateway ID a string for the AI SDK default provider, and its catalog knows it', async () => {
    expect(await resolveModel('openai/gpt-5.6-terra')).toEqual({
      model: 'openai/gpt-5.6-terra',
      modelId: 'openai/gpt-5.6-terra',
      gateway: true,
    })
  })

  it('makes `bedrock:<id>` a model of the AI SDK Bedrock provider, outside the Gateway catalog', async () => {
    const resolved = await resolveModel(`bedrock:${SONNET_US}`)
    const model = resolved.model as {
      provider: string
      modelId: string
      specificationVersion: string
    }
    expect(model.provider).toBe('amazon-bedrock')
    expect(model.modelId).toBe(SONNET_US)
    expect(model.specificationVersion).toBe('v4')
    // Named as the same model's provider object is, so calibration is shared.
    expect(resolved.modelId).toBe(`amazon-bedrock/${SONNET_US}`)
    expect(resolved.gateway).toBe(false)
  })

  it('names a Bedrock model object as `amazon-bedrock/<id>`, the same as its `bedrock:` ID', async () => {
    const object = createAmazonBedrock({ region: 'us-east-1' })(SONNET_US)
    const resolved = await resolveModel(object)
    expect(resolved.model).toBe(object)
    expect(resolved).toMatchObject({ modelId: `amazon-bedrock/${SONNET_US}`, gateway: false })
  })

  it("takes ModelSettings with either kind of ID: speed 'fast' asks that provider for its priority tier", async () => {
    expect(
      await resolveModel({ model: 'openai/gpt-5.6-terra', reasoning: 'low', speed: 'fast' }),
    ).toEqual({
      model: 'openai/gpt-5.6-terra',
      modelId: 'openai/gpt-5.6-terra',
      gateway: true,
      reasoning: 'low',
      providerOptions: { gateway: { serviceTier: 'priority' } },
    })
    const bedrock = await resolveModel({ model: `bedrock:${SONNET_US}`, speed: 'fast' })
    expect((bedrock.model as { provider: string }).provider).toBe('amazon-bedrock')
    expect(bedrock.providerOptions).toEqual({ bedrock: { serviceTier: 'priority' } })
    expect(bedrock.gateway).toBe(false)
    const standard = await resolveModel({ model: `bedrock:${SONNET_US}`, speed: 'standard' })
    expect(standard.providerOptions).toBeUndefined()
  })

  it('refuses `bedrock:` without a model ID with a TypeError that shows the form', async () => {
    await expect(resolveModel('bedrock:')).rejects.toThrow(TypeError)
    await expect(resolveModel('bedrock: ')).rejects.toThrow(/bedrock:us\.anthropic/)
  })

  it('passes any other AI SDK model object through under its provider/modelId', async () => {
    const mock = new MockLanguageModelV4({ provider: 'test', modelId: 'm' })
    expect(await resolveModel(mock)).toEqual({ model: mock, modelId: 'test/m', gateway: false })
  })
})
