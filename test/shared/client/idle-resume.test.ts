import { Chat } from '@ai-sdk/react'
import type { UIMessage } from 'ai'
import { describe, expect, it } from 'vitest'
import {
  AgentChatTransport,
  type ClientSession,
  createAgentClient,
} from '../../../shared/client/index.ts'
import { text } from '../../../shared/testing/scripted-model.ts'
import {
  type ServedAgent,
  servedAgent,
  textOf,
  tracked,
  until,
} from '../../support/served-agent.ts'

// A real agent whose streams end after 150 ms of quiet, and clients that
// resume them: what each client requests shows whether it holds a stream.

const QUIET = { stream: { quietMs: 150 } }

interface Request {
  kind: 'stream' | 'head' | 'post'
  at: number
  /** When the stream's body ended (streams only). */
  endedAt?: number
}

function clientFor(served: ServedAgent, idleCheckMs: number) {
  const requests: Request[] = []
  const client = tracked(
    createAgentClient({
      api: served.api,
      idleCheckMs,
      fetch: async (input, init) => {
        const url = new URL(String(input))
        const request: Request = {
          kind: init?.method === 'POST' ? 'post' : url.searchParams.has('head') ? 'head' : 'stream',
          at: Date.now(),
        }
        requests.push(request)
        const response = await fetch(input, init)
        if (request.kind !== 'stream' || !response.body) return response
        const body = response.body.pipeThrough(
          new TransformStream({
            flush: () => {
              request.endedAt = Date.now()
            },
          }),
        )
        return new Response(body, { status: response.status, headers: response.headers })
      },
    }),
  )
  return { client, requests }
}

/** Streams open at `at`: begun and not yet ended. */
const openStreams = (requests: Request[], at = Date.now()) =>
  requests.filter((r) => r.kind === 'stream' && r.at <= at && (r.endedAt ?? Infinity) > at)

async function resting(requests: Request[]): Promise<void> {
  await until(() => requests.some((r) => r.kind === 'head'), 5_000)
}

async function answered(session: ClientSession, messages: number, answer: string) {
  return until(() => {
    const snapshot = session.getSnapshot()
    return (
      snapshot.messages.length === messages &&
      textOf(snapshot.messages.at(-1)) === answer &&
      snapshot.status === 'idle' &&
      snapshot
    )
  }, 5_000)
}

describe('createAgentClient after the server ends a quiet stream', () => {
  it('an idle session holds no stream, checks the head, and shows a turn another client started', async () => {
    const served = await servedAgent([text('Hello from the agent', { chunks: 3 })], QUIET)
    const watcher = clientFor(served, 100)
    const session = watcher.client.session('s1')
    const connections = new Set<string>()
    session.subscribe(() => connections.add(session.getSnapshot().connection))
    await resting(watcher.requests)
    await new Promise((resolve) => setTimeout(resolve, 250))
    // Resting: checks, and no stream open.
    expect(openStreams(watcher.requests)).toEqual([])
    expect(watcher.requests.filter((r) => r.kind === 'head').length).toBeGreaterThanOrEqual(2)
    expect(session.getSnapshot()).toMatchObject({ connection: 'open', caughtUp: true })

    const sender = tracked(createAgentClient({ api: served.api }))
    const sentAt = Date.now()
    await sender.session('s1').sendMessage('Hi')
    await answered(session, 2, 'Hello from the agent')
    // Seen through a head check (every 100 ms): without them the idle tab
    // would never see the turn. The bound leaves a loaded machine room.
    expect(Date.now() - sentAt).toBeLessThan(10_000)
    expect([...connections]).toEqual(['connecting', 'open'])
  })

  it('its own send opens a resting stream at once, with no head check to wait for', async () => {
    const served = await servedAgent([text('Hello from the agent', { chunks: 3 })], QUIET)
    const { client, requests } = clientFor(served, 60_000)
    const session = client.session('s1')
    session.subscribe(() => {})
    await until(() => requests.some((r) => r.kind === 'stream' && r.endedAt !== undefined))
    expect(openStreams(requests)).toEqual([])
    const sentAt = Date.now()
    await session.sendMessage('Hi')
    await answered(session, 2, 'Hello from the agent')
    // At once, not after the next idle check (60 s away).
    expect(Date.now() - sentAt).toBeLessThan(10_000)
    expect(requests.filter((r) => r.kind === 'head')).toEqual([])
  })

  it('reconnects at once when a quiet end comes while the turn is at work, and stays caught up', async () => {
    // Chunks 250 ms apart: the stream ends for quiet between every two.
    const served = await servedAgent([text('one two three', { chunks: 3 })], {
      ...QUIET,
      chunkDelayMs: 250,
      harness: { type: 'ai-sdk', generation: { progress: { windowMs: 1, maxChunks: 1 } } },
    })
    const { client, requests } = clientFor(served, 60_000)
    const session = client.session('s1')
    session.subscribe(() => {})
    await session.sendMessage('Count')
    const done = await answered(session, 2, 'one two three')
    expect(requests.filter((r) => r.kind === 'stream').length).toBeGreaterThanOrEqual(3)
    expect(requests.filter((r) => r.kind === 'head')).toEqual([])
    await served.agent.runtime.idle()
    expect(done.confirmed).toEqual(await served.agent.session('s1').state())
    await until(() => session.getSnapshot().caughtUp)
  })

  it('AgentChatTransport streams a response through quiet ends mid-turn', async () => {
    const served = await servedAgent([text('one two three', { chunks: 3 })], {
      ...QUIET,
      chunkDelayMs: 250,
      harness: { type: 'ai-sdk', generation: { progress: { windowMs: 1, maxChunks: 1 } } },
    })
    const { client } = clientFor(served, 60_000)
    const chat = new Chat<UIMessage>({ id: 'c1', transport: new AgentChatTransport({ client }) })
    const started = Date.now()
    await chat.sendMessage({ text: 'Count' })
    expect(textOf(chat.messages[1])).toBe('one two three')
    // Three chunks 250 ms apart, through two quiet ends: seconds, not the
    // idle check's minute. The bound leaves a loaded machine room.
    expect(Date.now() - started).toBeLessThan(10_000)
  })
})
