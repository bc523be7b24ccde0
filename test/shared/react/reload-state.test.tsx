// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { type AgentClient, createAgentClient, WIRE_PROTOCOL } from '../../../shared/client/index.ts'
import { useAgent } from '../../../shared/react/index.ts'
import { text } from '../../../shared/testing/scripted-model.ts'
import { servedAgent, tracked, until } from '../../support/served-agent.ts'

afterEach(() => cleanup())

/** What one session's component shows: why to reload, or its connection. */
function Notice({ client, id }: { client: AgentClient; id: string }) {
  const { reload, connection } = useAgent({ client, id })
  return <output aria-label={id}>{reload ? `reload: ${reload.message}` : connection}</output>
}

describe('useAgent: the reload state', () => {
  it("tells every session of the client to reload once the server refused the page's protocol for one", async () => {
    const served = await servedAgent([text('Hi.')])
    const client = tracked(
      createAgentClient({ api: served.api, reconnect: { baseDelayMs: 20, maxDelayMs: 100 } }),
    )
    render(
      <>
        <Notice client={client} id="s1" />
        <Notice client={client} id="s2" />
      </>,
    )
    await until(() => screen.getByLabelText('s2').textContent === 'open')
    // The server refuses s1's requests, as one of a newer deploy rolled back.
    served.rewrite = (request) => {
      if (new URL(request.url).searchParams.get('sessionId') !== 's1') return request
      const headers = new Headers(request.headers)
      headers.set('a2-protocol', String(WIRE_PROTOCOL + 1))
      return new Request(request, { headers })
    }
    served.dropStreams()
    await until(() => screen.getByLabelText('s1').textContent?.startsWith('reload:') === true)
    await until(() => screen.getByLabelText('s2').textContent?.startsWith('reload:') === true)
    expect(screen.getByLabelText('s2').textContent).toMatch(/reload the page$/)
  })
})
