import { describe, expect, it, onTestFinished } from 'vitest'
import { REMINDER_METADATA } from '../../../functions/example/message-metadata.ts'
import { supportAgentOptions } from '../../../functions/example/support-agent.ts'
import { agent } from '../../../shared/agent/index.ts'
import { offlineModel } from '../../../shared/agent/model-step/offline-model.ts'
import { inputs } from '../../../shared/ai.ts'
import { textOf, track, until, userMessage } from '../../support/agent-log.ts'
import { exampleGateway } from '../../support/example-gateway.ts'

function exampleAgent() {
  const { online, ...options } = supportAgentOptions({})
  expect(online).toBe(false)
  return track(agent({ ...options, model: offlineModel({ wordDelayMs: 0 }) }))
}

describe('the example support agent (npm start) on the offline demo model', () => {
  it('uses a real Gateway model only when AI_GATEWAY_API_KEY is set', () => {
    expect(supportAgentOptions({ AI_GATEWAY_API_KEY: 'key' })).toMatchObject({
      online: true,
      model: 'openai/gpt-5.6-terra',
    })
    expect(supportAgentOptions({}).model).toBe('offline')
    expect(supportAgentOptions({ AI_GATEWAY_API_KEY: 'key', A2_MODEL: 'offline' })).toMatchObject({
      online: false,
      model: 'offline',
    })
  })

  it('runs on Amazon Bedrock with one setting, A2_MODEL=bedrock:<id>, and no key', () => {
    const model = 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0'
    expect(supportAgentOptions({ A2_MODEL: model })).toMatchObject({ online: true, model })
    expect(supportAgentOptions({ A2_MODEL: 'openai/gpt-5.6-luna' })).toMatchObject({
      online: false,
      model: 'offline',
    })
  })

  it('asks before closing a ticket, then closes it once approved', async () => {
    const a = exampleAgent()
    await a.session('s').append(...inputs.message(userMessage('m1', 'Please close ticket T-42')))
    await a.runtime.idle()
    const approval = (await a.session('s').state()).state.pendingApprovals[0]
    expect(approval).toMatchObject({ toolName: 'closeTicket', input: { ticketId: 'T-42' } })
    if (!approval) return
    await a.session('s').append(...inputs.approval(approval, { approved: true }))
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(textOf(state.messages[1])).toContain('"closed":true')
  })

  it("sets a reminder that comes back as a user message, marked as the reminder's in its metadata", async () => {
    const a = exampleAgent()
    await a
      .session('s')
      .append(...inputs.message(userMessage('m1', 'remind me in 1 second to stretch')))
    const { state } = await until(async () => {
      const current = await a.session('s').state()
      return current.state.messages.length === 4 && current.state.active === null && current
    }, 4_000)
    expect(textOf(state.messages[2])).toBe('Reminder: stretch')
    expect(state.messages[2]).toMatchObject({ role: 'user', metadata: REMINDER_METADATA })
    expect(state.messages[0]?.metadata).toBeUndefined()
    expect(textOf(state.messages[3])).toBe('⏰ Reminder: stretch')
  })

  it('labels itself as the offline demo', async () => {
    const a = exampleAgent()
    await a.session('s').append(...inputs.message(userMessage('m1', 'Hello')))
    await a.runtime.idle()
    expect(textOf((await a.session('s').state()).state.messages[1])).toContain(
      '[offline demo model]',
    )
  })
})

describe('the example support agent on a Gateway model that names every tool call call_0', () => {
  it('closes two tickets in one session with two idempotency keys', async () => {
    const gateway = await exampleGateway()
    const uninstall = gateway.install()
    onTestFinished(async () => {
      uninstall()
      await gateway.close()
    })
    const { online: _online, ...options } = supportAgentOptions({
      AI_GATEWAY_API_KEY: 'test-gateway-key',
      A2_GATEWAY_URL: gateway.url,
    })
    const a = track(agent(options))
    for (const [turn, ticket] of ['T-1', 'T-2'].entries()) {
      await a
        .session('s')
        .append(...inputs.message(userMessage(`m${turn}`, `close ticket ${ticket}`)))
      await a.runtime.idle()
      const approval = (await a.session('s').state()).state.pendingApprovals[0]
      expect(approval).toMatchObject({ toolCallId: 'call_0', input: { ticketId: ticket } })
      if (!approval) return
      await a.session('s').append(...inputs.approval(approval, { approved: true }))
      await a.runtime.idle()
    }
    const { state } = await a.session('s').state()
    const results = state.messages
      .flatMap((message) => message.parts)
      .flatMap((part) => ('output' in part && part.output ? [part.output] : []))
    expect(results).toMatchObject([
      { ticketId: 'T-1', closed: true },
      { ticketId: 'T-2', closed: true },
    ])
    const keys = results.map((result) => (result as { idempotencyKey: string }).idempotencyKey)
    expect(new Set(keys).size).toBe(2)
    expect(keys).not.toContain('call_0')
  })
})
