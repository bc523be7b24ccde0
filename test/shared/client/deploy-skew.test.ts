import { tool } from 'ai'
import { createParser } from 'eventsource-parser'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { inputs } from '../../../shared/ai.ts'
import {
  type ClientSession,
  createAgentClient,
  hasA2Code,
  WIRE_PROTOCOL,
} from '../../../shared/client/index.ts'
import { text, toolCalls } from '../../../shared/testing/scripted-model.ts'
import {
  type ServedAgent,
  servedAgent,
  textOf,
  tracked,
  until,
} from '../../support/served-agent.ts'

// Issue 38, part 6: a browser tab opened before a deploy keeps working
// against the new server, or is told to reload with a clear reason.

const lookup = tool({
  inputSchema: z.object({ ticketId: z.string() }),
  execute: async ({ ticketId }) => ({ ticketId, status: 'open' }),
})
const closeTicket = tool({
  inputSchema: z.object({ ticketId: z.string() }),
  execute: async ({ ticketId }) => ({ ticketId, closed: true }),
})

/**
 * A tab's client, the `id:` of every event any of its streams carried, in
 * order, and each request's method and `a2-protocol`.
 */
function tabOn(served: ServedAgent): {
  session: ClientSession
  wireIndices: number[]
  named: string[]
} {
  const wireIndices: number[] = []
  const named: string[] = []
  const fetch: typeof globalThis.fetch = async (input, init) => {
    named.push(`${init?.method ?? 'GET'} ${new Headers(init?.headers).get('a2-protocol')}`)
    const response = await globalThis.fetch(input, init)
    const sse = response.headers.get('content-type')?.startsWith('text/event-stream')
    if (!sse || !response.body) return response
    const [mine, theirs] = response.body.tee()
    void collectIds(mine, wireIndices)
    return new Response(theirs, response)
  }
  const client = tracked(
    createAgentClient({ api: served.api, fetch, reconnect: { baseDelayMs: 20, maxDelayMs: 100 } }),
  )
  return { session: client.session('s1'), wireIndices, named }
}

async function collectIds(body: ReadableStream<Uint8Array>, into: number[]): Promise<void> {
  const parser = createParser({ onEvent: (message) => into.push(Number(message.id)) })
  const reader = body.getReader()
  const decoder = new TextDecoder()
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      parser.feed(decoder.decode(value, { stream: true }))
    }
  } catch {
    // The tab left the stream (or the server dropped it): what came is counted.
  }
}

/** The client's confirmed state is the server's, index for index. */
async function expectSameAsServer(served: ServedAgent, session: ClientSession): Promise<void> {
  await served.agent.runtime.idle()
  const server = await served.agent.session('s1').state()
  await until(() => session.getSnapshot().confirmed.index === server.index)
  expect(session.getSnapshot().confirmed).toEqual(server)
}

describe('a tab opened before a deploy keeps working', () => {
  it('reconnects to the new agent over the same store from its cursor and goes on: a POST works, no event lost or duplicated', async () => {
    const served = await servedAgent([text('Before the deploy.')], { tools: { lookup } })
    served.version = 'A'
    const { session, wireIndices, named } = tabOn(served)
    session.subscribe(() => {})
    await session.sendMessage('Hello')
    await until(() => textOf(session.getSnapshot().messages[1]) === 'Before the deploy.')
    await expectSameAsServer(served, session)
    expect(session.getSnapshot().server).toEqual({ protocol: WIRE_PROTOCOL, version: 'A' })
    const cursor = session.getSnapshot().confirmed.index
    const streamsBefore = served.resumes.length

    // The deploy: a new agent object (another tool list, another model
    // script) over the same store, and a service writes while the tab is away.
    await served.redeploy(
      [
        text('Answer to the service.'),
        toolCalls({ toolCallId: 'call-1', toolName: 'closeTicket', input: { ticketId: 'T-1' } }),
        text('Closed T-1 after the deploy.'),
      ],
      { tools: { lookup, closeTicket } },
    )
    served.version = 'B'
    await served.agent
      .session('s1')
      .append(
        ...inputs.message({ id: 'svc-1', role: 'user', parts: [{ type: 'text', text: 'Ping' }] }),
      )
    await until(() => textOf(session.getSnapshot().messages[3]) === 'Answer to the service.')
    // It resumed after what it had, not from the start.
    expect(served.resumes[streamsBefore]).toBe(cursor)

    await session.sendMessage('Close T-1')
    await until(() => textOf(session.getSnapshot().messages[5]) === 'Closed T-1 after the deploy.')
    await expectSameAsServer(served, session)
    const snapshot = session.getSnapshot()
    expect(snapshot.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ])
    expect(snapshot.reload).toBeNull()
    expect(snapshot.connection).toBe('open')
    expect(snapshot.server).toEqual({ protocol: WIRE_PROTOCOL, version: 'B' })
    // Every event of the log crossed the wire once, across both servers.
    const head = snapshot.confirmed.index
    expect(wireIndices).toEqual(Array.from({ length: head }, (_, at) => at + 1))
    // Every request, the streams and the pushes, named the protocol it was written for.
    expect(new Set(named)).toEqual(new Set([`GET ${WIRE_PROTOCOL}`, `POST ${WIRE_PROTOCOL}`]))
  })
})

describe('a tab whose protocol the server does not speak is told to reload', () => {
  /**
   * A page of a newer deploy on a server rolled back to this build: its
   * requests name protocol WIRE_PROTOCOL + 1 (rewritten on their way in),
   * and every request is counted.
   */
  function rolledBack(served: ServedAgent): { requests: () => number } {
    let requests = 0
    served.rewrite = (request) => {
      requests++
      const headers = new Headers(request.headers)
      headers.set('a2-protocol', String(WIRE_PROTOCOL + 1))
      return new Request(request, { headers })
    }
    served.dropStreams()
    return { requests: () => requests }
  }

  it('stops its stream for good, says why in `reload`, and its push is refused with the typed error and writes nothing', async () => {
    const served = await servedAgent([text('Before the rollback.')])
    const { session } = tabOn(served)
    const seen: (string | null)[] = []
    session.subscribe(() => seen.push(session.getSnapshot().reload?.code ?? null))
    await session.sendMessage('Hello')
    await until(() => textOf(session.getSnapshot().messages[1]) === 'Before the rollback.')
    await served.agent.runtime.idle()
    const head = await served.agent.runtime.log.session('s1').head()
    expect(session.getSnapshot().reload).toBeNull()

    const { requests } = rolledBack(served)
    await until(() => session.getSnapshot().connection === 'failed')
    const snapshot = session.getSnapshot()
    expect(snapshot.reload).toEqual({
      code: 'PROTOCOL_MISMATCH',
      client: WIRE_PROTOCOL + 1,
      server: WIRE_PROTOCOL,
      oldest: 1,
      message: expect.stringMatching(/reload the page/),
    })
    expect(hasA2Code(snapshot.error, 'PROTOCOL_MISMATCH')).toBe(true)
    expect(seen).toContain('PROTOCOL_MISMATCH')

    const refused = await session.sendMessage('After the rollback').catch((error: unknown) => error)
    expect(hasA2Code(refused, 'PROTOCOL_MISMATCH')).toBe(true)
    if (hasA2Code(refused, 'PROTOCOL_MISMATCH')) {
      expect(refused.details).toEqual({
        client: WIRE_PROTOCOL + 1,
        server: WIRE_PROTOCOL,
        oldest: 1,
      })
    }
    expect(await served.agent.runtime.log.session('s1').head()).toBe(head)

    // No retrying against a server that refuses: the stream stays down.
    const sent = requests()
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(requests()).toBe(sent)
    expect(session.getSnapshot().connection).toBe('failed')
  })
})
