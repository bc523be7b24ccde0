import { describe, expect, it } from 'vitest'
import { type ClientSession, createAgentClient } from '../../../shared/client/index.ts'
import { text } from '../../../shared/testing/scripted-model.ts'
import {
  type ServedAgent,
  servedAgent,
  textOf,
  tracked,
  until,
} from '../../support/served-agent.ts'

const ANSWER = 'One two three four five six seven eight nine ten eleven twelve'

/** A slow answer, so the stream can be cut while it is being written. */
const slowAnswer = () =>
  servedAgent([text(ANSWER, { chunks: 12 })], {
    chunkDelayMs: 40,
    harness: { type: 'ai-sdk', generation: { progress: { windowMs: 1, maxChunks: 1 } } },
  })

/** A client whose stream requests record the index the session had applied when each was made. */
function clientFor(served: ServedAgent, transform?: (body: string, connection: number) => string) {
  const requests: { after: number; applied: number }[] = []
  let session: ClientSession | undefined
  const client = tracked(
    createAgentClient({
      api: served.api,
      reconnect: { baseDelayMs: 20, maxDelayMs: 200 },
      fetch: async (input, init) => {
        const url = new URL(String(input))
        if (init?.method === 'POST') return fetch(input, init)
        requests.push({
          after: Number(url.searchParams.get('after')),
          applied: session?.getSnapshot().confirmed.index ?? -1,
        })
        const response = await fetch(input, init)
        if (!transform || !response.body) return response
        const connection = requests.length
        return new Response(
          response.body
            .pipeThrough(new TextDecoderStream())
            .pipeThrough(framesOf((frame) => transform(frame, connection)))
            .pipeThrough(new TextEncoderStream()),
          { status: response.status, headers: response.headers },
        )
      },
    }),
  )
  session = client.session('s1')
  return { client, session, requests }
}

/** Re-chunks SSE text into whole frames, so a test can drop or rewrite one. */
function framesOf(map: (frame: string) => string): TransformStream<string, string> {
  let buffer = ''
  return new TransformStream({
    transform(chunk, controller) {
      buffer += chunk
      let end = buffer.indexOf('\n\n')
      while (end !== -1) {
        controller.enqueue(map(buffer.slice(0, end + 2)))
        buffer = buffer.slice(end + 2)
        end = buffer.indexOf('\n\n')
      }
    },
  })
}

async function expectCaughtUp(served: ServedAgent, session: ClientSession): Promise<void> {
  await served.agent.runtime.idle()
  const head = await served.agent.runtime.log.session('s1').head()
  const snapshot = await until(() => {
    const current = session.getSnapshot()
    return current.confirmed.index === head && current.status === 'idle' && current
  })
  const server = await served.agent.session('s1').state()
  // Any event applied twice (progress chunks) or skipped would show here.
  expect(snapshot.confirmed).toEqual(server)
  expect(textOf(snapshot.messages[1])).toBe(ANSWER)
}

describe('createAgentClient: reconnection', () => {
  it('resumes from the last applied index after the server drops the stream mid-answer', async () => {
    const served = await slowAnswer()
    const { session, requests } = clientFor(served)
    session.subscribe(() => {})
    await session.sendMessage('Count to twelve')
    await until(() => textOf(session.getSnapshot().messages[1]).length > 10)
    served.dropStreams()
    await expectCaughtUp(served, session)

    expect(requests.length).toBeGreaterThanOrEqual(2)
    expect(requests[0]?.after).toBe(0)
    expect(requests[1]?.after).toBeGreaterThan(0)
    for (const request of requests) expect(request.after).toBe(request.applied)
    expect(served.resumes).toEqual(requests.map((request) => request.after))
  })

  it('survives the server restarting mid-turn, retrying with backoff until it is back', async () => {
    const served = await slowAnswer()
    const { session, requests } = clientFor(served)
    const connections: string[] = []
    session.subscribe(() => connections.push(session.getSnapshot().connection))
    await session.sendMessage('Count to twelve')
    await until(() => textOf(session.getSnapshot().messages[1]).length > 10)
    await served.restart()
    await expectCaughtUp(served, session)
    expect(connections).toContain('reconnecting')
    expect(session.getSnapshot().connection).toBe('open')
    expect(requests.at(-1)?.after).toBeGreaterThan(0)
  })

  it('ignores events it already applied when a reconnect replays them', async () => {
    const served = await slowAnswer()
    // A proxy that loses the resume index: every reconnect replays the log from the start.
    served.rewrite = (request) => {
      const url = new URL(request.url)
      if (request.method !== 'GET') return request
      url.searchParams.set('after', '0')
      return new Request(url, request)
    }
    const { session } = clientFor(served)
    session.subscribe(() => {})
    await session.sendMessage('Count to twelve')
    await until(() => textOf(session.getSnapshot().messages[1]).length > 10)
    served.dropStreams()
    await expectCaughtUp(served, session)
    expect(served.resumes.filter((after) => after === 0).length).toBeGreaterThanOrEqual(2)
  })

  it('re-reads from the last applied index when an index is skipped', async () => {
    const served = await slowAnswer()
    // The first connection loses the frame of event 4.
    const { session, requests } = clientFor(served, (frame, connection) =>
      connection === 1 && frame.startsWith('id: 4\n') ? '' : frame,
    )
    session.subscribe(() => {})
    await session.sendMessage('Count to twelve')
    await expectCaughtUp(served, session)
    expect(requests.map((request) => request.after).slice(0, 2)).toEqual([0, 3])
  })
})
