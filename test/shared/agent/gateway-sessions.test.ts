import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { agent } from '../../../shared/agent/index.ts'
import { inputs } from '../../../shared/ai.ts'
import { type GatewayDouble, gatewayDouble } from '../../../shared/testing/gateway-double.ts'
import { lastUserText, text } from '../../../shared/testing/model-script.ts'
import { eventsOf, textOf, track, userMessage } from '../../support/agent-log.ts'

// The configuration the docs recommend: a Gateway model ID, the default
// generator (streamText through the real @ai-sdk/gateway provider), the
// default compaction (on), the catalog answering, many sessions on one store.

const MODEL = 'openai/gpt-5.6-terra'
let gateway: GatewayDouble
let uninstall: () => void
beforeEach(async () => {
  gateway = await gatewayDouble({
    script: (call) => text(`echo: ${lastUserText(call)}`),
    catalog: { [MODEL]: { contextWindow: 400_000, maxOutputTokens: 128_000 } },
  })
  uninstall = gateway.install()
})
afterEach(async () => {
  uninstall()
  await gateway.close()
})

describe('many sessions on one store with a Gateway model', () => {
  it('"The first generation with each Gateway model in a session records ai.model.metadata.requested": each of 12 sessions records its own and answers', async () => {
    const a = track(
      agent({ name: 'desk', model: MODEL, modelCatalog: { url: gateway.catalogUrl } }),
    )
    const sessions = Array.from({ length: 12 }, (_, i) => `s${i}`)
    // Started together, as a page's users start them.
    await Promise.all(
      sessions.map((id) =>
        a.session(id).append(...inputs.message(userMessage(`${id}-m1`, `hi ${id}`))),
      ),
    )
    await a.runtime.idle()
    for (const id of sessions) {
      const { state } = await a.session(id).state()
      expect(state.deadLetters).toEqual([])
      expect(state.active).toBeNull()
      expect(state.messages.map(textOf)).toEqual([`hi ${id}`, `echo: hi ${id}`])
      expect(state.modelMetadata[MODEL]).toEqual({
        status: 'resolved',
        contextWindow: 400_000,
        maxOutputTokens: 128_000,
      })
      const types = (await eventsOf(a, id)).map((event) => event.type)
      expect(types.filter((type) => type === 'ai.model.metadata.requested')).toHaveLength(1)
      expect(types.filter((type) => type === 'ai.model.metadata.resolved')).toHaveLength(1)
    }
    expect(gateway.calls).toHaveLength(12)
    expect(new Set(gateway.calls.map((call) => call.modelId))).toEqual(new Set([MODEL]))
  })

  it('a second turn in each session does not ask the catalog again', async () => {
    const a = track(
      agent({ name: 'desk', model: MODEL, modelCatalog: { url: gateway.catalogUrl } }),
    )
    for (const id of ['a', 'b']) {
      for (const turn of [1, 2]) {
        await a.session(id).append(...inputs.message(userMessage(`${id}-${turn}`, `turn ${turn}`)))
        await a.runtime.idle()
      }
      const { state } = await a.session(id).state()
      expect(state.messages.map(textOf)).toEqual([
        'turn 1',
        'echo: turn 1',
        'turn 2',
        'echo: turn 2',
      ])
    }
    expect(gateway.catalogReads()).toBe(2)
  })
})
