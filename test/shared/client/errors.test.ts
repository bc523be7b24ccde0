import { describe, expect, it } from 'vitest'
import { AgentClientError, createAgentClient } from '../../../shared/client/index.ts'
import { serveFetch } from '../../../shared/node/serve.ts'
import { text } from '../../../shared/testing/scripted-model.ts'
import { onCleanup, servedAgent, tracked, until } from '../../support/served-agent.ts'

describe('createAgentClient: errors', () => {
  it('a refused push rejects with the server code and HTTP status', async () => {
    const served = await servedAgent([text('unused')])
    const server = await serveFetch((request) =>
      served.agent.fetch(request, { authorize: () => false }),
    )
    onCleanup(() => server.close())
    const client = tracked(createAgentClient({ api: `${server.url}/api/agent` }))
    const error = await client
      .session('s1')
      .sendMessage('Hi')
      .catch((cause: unknown) => cause)
    expect(error).toBeInstanceOf(AgentClientError)
    expect(error).toMatchObject({ code: 'FORBIDDEN', status: 403, name: 'AgentClientError' })
    expect((error as Error).message).toContain('Not allowed to push')
  })

  it('a server-authored event is refused with 400 SERVER_EVENT_REFUSED', async () => {
    const served = await servedAgent([text('unused')])
    const client = tracked(createAgentClient({ api: served.api }))
    await expect(
      client.session('s1').push({ type: 'ai.generation.started', payload: {} }),
    ).rejects.toMatchObject({ code: 'SERVER_EVENT_REFUSED', status: 400 })
  })

  it('an unreachable agent is a NETWORK_ERROR with status 0, after retries', async () => {
    const server = await serveFetch(async () => new Response('unused'))
    const api = `${server.url}/api/agent`
    await server.close()
    const attempts: string[] = []
    const client = tracked(
      createAgentClient({
        api,
        reconnect: { baseDelayMs: 5 },
        fetch: (input, init) => {
          attempts.push(init?.method ?? 'GET')
          return fetch(input, init)
        },
      }),
    )
    await expect(client.session('s1').sendMessage('Hi')).rejects.toMatchObject({
      code: 'NETWORK_ERROR',
      status: 0,
    })
    expect(attempts).toEqual(['POST', 'POST', 'POST'])
  })

  it('a stream the server refuses for good reports connection "failed" with the typed error', async () => {
    const served = await servedAgent([text('unused')])
    const server = await serveFetch((request) =>
      served.agent.fetch(request, { authorize: (operation) => operation.type !== 'read' }),
    )
    onCleanup(() => server.close())
    const client = tracked(createAgentClient({ api: `${server.url}/api/agent` }))
    const session = client.session('s1')
    session.subscribe(() => {})
    const failed = await until(() => {
      const snapshot = session.getSnapshot()
      return snapshot.connection === 'failed' && snapshot
    })
    expect(failed.error).toMatchObject({ code: 'FORBIDDEN', status: 403 })
  })
})
