import { Chat } from '@ai-sdk/react'
import { lastAssistantMessageIsCompleteWithApprovalResponses, tool, type UIMessage } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { inputs } from '../../../shared/ai.ts'
import { AgentChatTransport } from '../../../shared/client/index.ts'
import { text, toolCalls } from '../../../shared/testing/scripted-model.ts'
import { type ServedAgent, servedAgent, textOf, until } from '../../support/served-agent.ts'

// The AI SDK's own Chat (what useChat() runs), unchanged, over the transport.
function chatFor(served: ServedAgent, id: string, messages: UIMessage[] = [], extra = {}) {
  const transport = new AgentChatTransport({ api: served.api })
  const chat = new Chat<UIMessage>({ id, messages, transport, ...extra })
  return { chat, transport }
}

async function serverMessages(served: ServedAgent, id: string) {
  await served.agent.runtime.idle()
  return (await served.agent.session(id).state()).state.messages
}

describe('AgentChatTransport with the AI SDK Chat', () => {
  it('sends durably and streams the answer into chat.messages exactly as the server folds it', async () => {
    const served = await servedAgent([text('Hello from the agent', { chunks: 4 })], {
      chunkDelayMs: 20,
    })
    const { chat, transport } = chatFor(served, 'c1')
    const statuses: string[] = []
    chat['~registerStatusCallback'](() => statuses.push(chat.status))
    await chat.sendMessage({ text: 'Hi' })
    expect(chat.status).toBe('ready')
    expect(statuses).toContain('streaming')
    const server = await serverMessages(served, 'c1')
    expect(chat.messages).toEqual(server)
    expect(chat.messages[1]?.id).toBe(`a2.ai:response:${chat.messages[0]?.id}`)
    transport.close()
  })

  it('chat.stop() stops the turn at what the chat showed; the partial text stays on both sides', async () => {
    const served = await servedAgent([
      { hang: true, parts: text('A long story begins here', { chunks: 5 }).slice(0, 5) },
    ])
    const { chat, transport } = chatFor(served, 'c2')
    const sending = chat.sendMessage({ text: 'Tell me a story' })
    await until(() => textOf(chat.messages[1]).length > 0)
    await chat.stop()
    await sending
    const shown = textOf(chat.messages[1])
    const server = await until(async () => {
      const { state } = await served.agent.session('c2').state()
      return state.receipt?.action === 'stop' && state
    })
    expect(textOf(server.messages[1])).toBe(shown)
    expect(served.model.calls[0]?.abortSignal?.aborted).toBe(true)
    transport.close()
  })

  it('reconnectToStream replays the active response from the log after a reload, with no duplicated text', async () => {
    const served = await servedAgent([text('One two three four five six', { chunks: 6 })], {
      chunkDelayMs: 60,
      harness: { type: 'ai-sdk', generation: { progress: { windowMs: 1, maxChunks: 1 } } },
    })
    await served.agent
      .session('c3')
      .append(
        ...inputs.message({ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Count' }] }),
      )
    await until(async () => {
      const { state } = await served.agent.session('c3').state()
      return textOf(state.messages[1]).length > 3
    })
    // A reloaded page: the server render's messages, then resume.
    const { state } = await served.agent.session('c3').state()
    const { chat, transport } = chatFor(served, 'c3', state.messages as UIMessage[])
    await chat.resumeStream()
    expect(chat.status).toBe('ready')
    const server = await serverMessages(served, 'c3')
    expect(textOf(chat.messages[1])).toBe('One two three four five six')
    expect(chat.messages).toEqual(server)
    transport.close()
  })

  it('reconnectToStream answers null when nothing is running', async () => {
    const served = await servedAgent([])
    const transport = new AgentChatTransport({ api: served.api })
    expect(await transport.reconnectToStream({ chatId: 'idle' })).toBeNull()
    transport.close()
  })

  it('regenerate() retries a failed model call', async () => {
    const served = await servedAgent([{ error: 'provider overloaded' }, text('Recovered.')])
    const errors: Error[] = []
    const { chat, transport } = chatFor(served, 'c4', [], { onError: (e: Error) => errors.push(e) })
    await chat.sendMessage({ text: 'Hi' })
    expect(chat.status).toBe('error')
    expect(errors[0]?.message).toContain('provider overloaded')
    await chat.regenerate()
    expect(errors.slice(1)).toEqual([])
    expect(chat.status).toBe('ready')
    expect(textOf(chat.messages.at(-1))).toBe('Recovered.')
    expect(chat.messages).toEqual(await serverMessages(served, 'c4'))
    transport.close()
  })

  it('answers approvals sent with addToolApprovalResponse and sendAutomaticallyWhen', async () => {
    const served = await servedAgent(
      [
        toolCalls({ toolCallId: 'call-1', toolName: 'closeTicket', input: { ticketId: 'T-9' } }),
        text('Closed T-9.'),
      ],
      {
        tools: {
          closeTicket: tool({
            inputSchema: z.object({ ticketId: z.string() }),
            execute: async ({ ticketId }) => ({ ticketId, closed: true }),
          }),
        },
        harness: { type: 'ai-sdk', generation: { toolApproval: { closeTicket: 'user-approval' } } },
      },
    )
    const { chat, transport } = chatFor(served, 'c5', [], {
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    })
    await chat.sendMessage({ text: 'Close T-9' })
    const part = chat.messages[1]?.parts.find((p) => p.type === 'tool-closeTicket') as
      | { state: string; approval?: { id: string } }
      | undefined
    expect(part?.state).toBe('approval-requested')
    await chat.addToolApprovalResponse({ id: part?.approval?.id as string, approved: true })
    await until(() => chat.status === 'ready' && textOf(chat.messages[1]).includes('Closed T-9.'))
    expect(chat.messages).toEqual(await serverMessages(served, 'c5'))
    transport.close()
  })
})
