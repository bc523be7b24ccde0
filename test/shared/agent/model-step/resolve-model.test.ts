import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it, onTestFinished } from 'vitest'
import { agent } from '../../../../shared/agent/index.ts'
import { resolveModel } from '../../../../shared/agent/model-step/resolve-model.ts'
import { inputs } from '../../../../shared/ai.ts'
import { scriptedModel, text } from '../../../../shared/testing/scripted-model.ts'
import { until, userMessage } from '../../../support/agent-log.ts'

const quiet = { info() {}, warn() {}, error() {} }

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

describe('a model that is not one', () => {
  it('agent({ model: scriptedModel() }) throws a TypeError at once, saying to pass its .model, not later "Cannot read properties of undefined (reading \'startsWith\')"', () => {
    const scripted = scriptedModel([text('hi')])
    expect(() => agent({ name: 'a', model: scripted as never })).toThrow(TypeError)
    expect(() => agent({ name: 'a', model: scripted as never })).toThrow(
      /^agent\(\{ model \}\): a model is a model ID \('openai\/gpt-5\.6-terra' through AI Gateway, 'bedrock:<model ID>', 'offline'\), .*; got an object that holds one under \.model \(as scriptedModel\(\) returns \{ model, calls \}\): pass its \.model$/,
    )
    const a = agent({ name: 'a', model: scripted.model })
    a.runtime.close()
  })

  it('names what it got otherwise: an object without a model ID, an empty ID, a number', () => {
    expect(() => agent({ name: 'a', model: { id: 'x' } as never })).toThrow(
      /; got an object with keys id$/,
    )
    expect(() => agent({ name: 'a', model: '' })).toThrow(/; got ""$/)
    expect(() => agent({ name: 'a', model: 42 as never })).toThrow(/; got number$/)
  })

  it("a resolver's answer is checked per step: the step fails with the same reason", async () => {
    const scripted = scriptedModel([text('hi')])
    const a = agent({ name: 'a', model: () => scripted as never, logger: quiet })
    onTestFinished(() => a.runtime.close())
    await a.session('s').append(...inputs.message(userMessage('m1', 'Hello')))
    const { state } = await until(async () => {
      const read = await a.session('s').state()
      return read.state.active?.phase === 'failed' && read
    })
    expect(state.active?.error).toMatch(/pass its \.model$/)
  })
})
