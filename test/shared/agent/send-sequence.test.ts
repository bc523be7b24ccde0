import { describe, expect, it } from 'vitest'
import { agent } from '../../../shared/agent/index.ts'
import { inputs } from '../../../shared/ai.ts'
import { scriptedModel, text } from '../../../shared/testing/scripted-model.ts'
import { track, userMessage } from '../../support/agent-log.ts'

describe('What happens after a send (embedded)', () => {
  it('turns one generating user message into the documented durable sequence, and answers it', async () => {
    const script = scriptedModel([text('Hello! How can I help?', { chunks: 4 })])
    const assistant = track(
      agent({ name: 'support-agent', model: script.model, instructions: 'Be concise.' }),
    )
    await assistant.session('s1').append(...inputs.message(userMessage('m1', 'Hi')))
    await assistant.runtime.idle()

    const events = await assistant.runtime.log.session('s1').read()
    const types = events
      .map((event) => event.type)
      .filter((type) => type !== 'ai.generation.progress')
    expect(types).toEqual([
      'ai.control.requested',
      'ai.message.created',
      'ai.control.committed',
      'ai.control.decided',
      'ai.generation.requested',
      'ai.generation.started',
      'ai.generation.completed',
      'ai.message.completed',
    ])
    expect(events.some((event) => event.type === 'ai.generation.progress')).toBe(true)

    const { state } = await assistant.session('s1').state()
    const messages = state.messages.map((m) => ({
      role: m.role,
      text: m.parts.map((p) => (p.type === 'text' ? p.text : '')).join(''),
    }))
    expect(messages).toEqual([
      { role: 'user', text: 'Hi' },
      { role: 'assistant', text: 'Hello! How can I help?' },
    ])
    expect(state.active).toBeNull()
    expect(script.calls).toHaveLength(1)
    expect(script.calls[0]?.prompt[0]).toEqual({ role: 'system', content: 'Be concise.' })
  })
})
