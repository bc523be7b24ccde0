// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react'
import type { UIMessageChunk } from 'ai'
import { afterEach, describe, expect, it } from 'vitest'
import { AgentChatTransport, createAgentClient } from '../../../shared/client/index.ts'
import type { OpenedSession } from '../../../shared/http/log-endpoint.ts'
import { sessionCapability } from '../../../shared/http/session-capability.ts'
import { serveFetch } from '../../../shared/node/serve.ts'
import { useAgent } from '../../../shared/react/index.ts'
import { text } from '../../../shared/testing/scripted-model.ts'
import { onCleanup, servedAgent, textOf, tracked, until } from '../../support/served-agent.ts'

afterEach(() => cleanup())

/** An agent behind a session capability, as `npm start` and the deployed API serve it. */
async function guardedAgent(answers: string[]) {
  const served = await servedAgent(answers.map((answer) => text(answer)))
  const sessions = sessionCapability({ key: 'a-client-test-key-of-32-bytes-or-more' })
  const server = await serveFetch((request) =>
    served.agent.fetch(request, {
      authorize: sessions.authorize,
      openSession: sessions.openSession,
    }),
  )
  onCleanup(() => server.close())
  const api = `${server.url}/api/agent`
  const open = async (): Promise<OpenedSession> => {
    const response = await fetch(api, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    return (await response.json()) as OpenedSession
  }
  return { served, api, open }
}

/** The connection of a session as one component sees it, with or without the token. */
function Status({
  api,
  id,
  token,
  label,
}: {
  api: string
  id: string
  token?: string
  label: string
}) {
  const { connection, error } = useAgent({ api, id, ...(token ? { token } : {}) })
  return (
    <output aria-label={label}>
      {connection}
      {error ? ` ${error.code}` : ''}
    </output>
  )
}

describe('a session token on the client', () => {
  it('createAgentClient({ token }) sends it on pushes and the stream; without it the server says 401', async () => {
    const { api, open, served } = await guardedAgent(['Hello, token holder.'])
    const { sessionId, token } = await open()
    const client = tracked(
      createAgentClient({ api, token: (id) => (id === sessionId ? token : undefined) }),
    )
    const session = client.session(sessionId)
    session.subscribe(() => {})
    await session.sendMessage('Hi')
    await until(
      () =>
        session
          .getSnapshot()
          .messages.some((message) => textOf(message) === 'Hello, token holder.'),
      5_000,
    )
    expect((await served.agent.session(sessionId).state()).index).toBeGreaterThan(1)

    const stranger = tracked(createAgentClient({ api }))
    await expect(stranger.session(sessionId).sendMessage('Let me in')).rejects.toMatchObject({
      code: 'TOKEN_MISSING',
      status: 401,
    })
    const watching = stranger.session(sessionId)
    watching.subscribe(() => {})
    const failed = await until(() => {
      const snapshot = watching.getSnapshot()
      return snapshot.connection === 'failed' && snapshot
    })
    expect(failed.error).toMatchObject({ code: 'TOKEN_MISSING', status: 401 })
  })

  it('AgentChatTransport({ token }) sends a message and streams the answer', async () => {
    const { api, open } = await guardedAgent(['Through the transport.'])
    const { sessionId, token } = await open()
    const transport = new AgentChatTransport({ api, token })
    const stream = await transport.sendMessages({
      trigger: 'submit-message',
      chatId: sessionId,
      messageId: undefined,
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
      abortSignal: undefined,
    })
    const chunks: UIMessageChunk[] = []
    for await (const chunk of stream) chunks.push(chunk)
    const deltas = chunks.flatMap((chunk) => (chunk.type === 'text-delta' ? [chunk.delta] : []))
    expect(deltas.join('')).toBe('Through the transport.')
  })

  it('useAgent({ api, id, token }) opens the session with its token', async () => {
    const { api, open } = await guardedAgent(['unused'])
    const { sessionId, token } = await open()
    render(
      <>
        <Status api={api} id={sessionId} token={token} label="holder" />
        <Status api={api} id={sessionId} label="stranger" />
      </>,
    )
    await until(() => screen.getByLabelText('holder').textContent === 'open', 5_000)
    await until(
      () => screen.getByLabelText('stranger').textContent === 'failed TOKEN_MISSING',
      5_000,
    )
  })
})
