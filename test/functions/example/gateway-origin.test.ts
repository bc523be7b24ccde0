import { streamText } from 'ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { gatewaySettings } from '../../../functions/example/gateway-origin.ts'
import { supportAgentOptions } from '../../../functions/example/support-agent.ts'
import { ClearError } from '../../../functions/exit-clearly.ts'
import { lookUpModel } from '../../../shared/agent/model-step/model-catalog.ts'
import { type GatewayDouble, gatewayDouble } from '../../../shared/testing/gateway-double.ts'
import { lastUserText, text } from '../../../shared/testing/model-script.ts'

const MODEL = 'openai/gpt-5.6-terra'
let gateway: GatewayDouble
beforeAll(async () => {
  gateway = await gatewayDouble({
    script: (call) => text(`echo: ${lastUserText(call)}`),
    catalog: { [MODEL]: { contextWindow: 400_000, maxOutputTokens: 128_000 } },
  })
})
afterAll(async () => {
  await gateway?.close()
})

describe('A2_GATEWAY_URL: the AI Gateway at another origin', () => {
  it('unset, changes nothing: the AI SDK and the catalog keep their AI Gateway defaults', () => {
    expect(gatewaySettings({})).toBeUndefined()
    expect(gatewaySettings({ A2_GATEWAY_URL: ' ', AI_GATEWAY_API_KEY: 'key' })).toBeUndefined()
    expect(supportAgentOptions({ AI_GATEWAY_API_KEY: 'key' })).not.toHaveProperty('modelCatalog')
  })

  it("sends model calls (with the key) and catalog reads to that origin's /v4/ai and /v1/models", async () => {
    const settings = gatewaySettings({
      A2_GATEWAY_URL: `${gateway.url}/`,
      AI_GATEWAY_API_KEY: 'test-gateway-key',
    })
    expect(settings?.origin).toBe(gateway.url)
    expect(settings?.modelCatalog).toEqual({ url: gateway.catalogUrl })
    if (!settings) return

    const result = streamText({ model: settings.provider(MODEL), prompt: 'hello' })
    expect(await result.text).toBe('echo: hello')
    expect(gateway.calls.at(-1)?.modelId).toBe(MODEL)
    expect(await lookUpModel(MODEL, settings.modelCatalog)).toEqual({
      contextWindow: 400_000,
      maxOutputTokens: 128_000,
    })
  })

  it("gives the example agent the origin's catalog, and leaves its model an ID string", () => {
    const options = supportAgentOptions({
      AI_GATEWAY_API_KEY: 'key',
      A2_GATEWAY_URL: gateway.url,
    })
    expect(options.model).toBe(MODEL)
    expect(options.modelCatalog).toEqual({ url: gateway.catalogUrl })
  })

  it('refuses what is not an origin in one line: not a URL, or a URL with a path', () => {
    expect(() => gatewaySettings({ A2_GATEWAY_URL: 'gateway.example.com' })).toThrow(ClearError)
    expect(() => gatewaySettings({ A2_GATEWAY_URL: 'gateway.example.com' })).toThrow(
      'A2_GATEWAY_URL: "gateway.example.com" is not a URL',
    )
    expect(() => gatewaySettings({ A2_GATEWAY_URL: 'https://ai-gateway.vercel.sh/v4/ai' })).toThrow(
      'A2_GATEWAY_URL: "https://ai-gateway.vercel.sh/v4/ai" has a path; give the AI Gateway\'s origin only (https://ai-gateway.vercel.sh)',
    )
  })
})
