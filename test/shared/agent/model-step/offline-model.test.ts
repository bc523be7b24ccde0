import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agent } from '../../../../shared/agent/index.ts'
import { resolveModel } from '../../../../shared/agent/model-step/resolve-model.ts'
import { inputs } from '../../../../shared/ai.ts'
import { textOf, track, typesOf, userMessage } from '../../../support/agent-log.ts'

const closeTicket = tool({
  description: 'Close a resolved support ticket',
  inputSchema: z.object({ ticketId: z.string() }),
  execute: async ({ ticketId }) => ({ ticketId, closed: true }),
})

async function converse(a: ReturnType<typeof agent>, text: string) {
  await a.session('s').append(...inputs.message(userMessage(crypto.randomUUID(), text)))
  await a.runtime.idle()
  return (await a.session('s').state()).state
}

describe("agent({ model: 'offline' }): the offline demo model, no key and no network", () => {
  it('answers by rules, labelled as the offline demo, and offers only what the agent can do', async () => {
    const a = track(agent({ name: 'plain', model: 'offline' }))
    const state = await converse(a, 'Hello')
    const answer = textOf(state.messages[1])
    expect(answer).toMatch(/^\[offline demo model\] You said: "Hello"\. /)
    expect(answer).toContain('"show me some markdown"')
    // An agent without the example's tools is not told to use them.
    expect(answer).not.toContain('close ticket')
    expect(state.active).toBeNull()
  })

  it('calls the agent\'s closeTicket tool for "close ticket T-42", then answers with its output', async () => {
    const a = track(agent({ name: 'support', model: 'offline', tools: { closeTicket } }))
    expect(textOf((await converse(a, 'Hi')).messages[1])).toContain('"close ticket T-42"')
    const state = await converse(a, 'close ticket T-42')
    const parts = state.messages[3]?.parts ?? []
    expect(parts).toContainEqual(
      expect.objectContaining({
        type: 'tool-closeTicket',
        state: 'output-available',
        input: { ticketId: 'T-42' },
        output: { ticketId: 'T-42', closed: true },
      }),
    )
    expect(textOf(state.messages[3])).toBe(
      'Done. The tool answered: {"ticketId":"T-42","closed":true}',
    )
  })

  it('is named a2-aws/offline in the log and looks nothing up in a model catalog, even with compaction on', async () => {
    expect(await resolveModel('offline')).toMatchObject({
      modelId: 'a2-aws/offline',
      gateway: false,
    })
    const a = track(
      agent({
        name: 'compacting',
        model: 'offline',
        harness: { type: 'ai-sdk', compaction: {} },
        modelCatalog: { fetch: () => Promise.reject(new Error('no catalog here')) },
      }),
    )
    await converse(a, 'Hello')
    expect(await typesOf(a, 's')).not.toContain('ai.model.metadata.requested')
  })
})
