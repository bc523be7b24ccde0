import { simulateReadableStream, type UIMessageChunk } from 'ai'
import { afterEach, describe, expect, it } from 'vitest'
import { agent, type GenerateContext } from '../../../shared/agent/index.ts'
import { inputs } from '../../../shared/ai.ts'
import { type LocalServer, serveFetch } from '../../../shared/node/serve.ts'
import { eventsOf, textOf, track, until, userMessage } from '../../support/agent-log.ts'

let catalog: LocalServer | undefined
let catalogRequests = 0
afterEach(async () => {
  await catalog?.close()
  catalog = undefined
  catalogRequests = 0
})

async function serveCatalog(status = 200): Promise<string> {
  catalog = await serveFetch(async () => {
    catalogRequests++
    return status === 200
      ? Response.json({
          object: 'list',
          data: [{ id: 'test/model-a', context_window: 128_000, max_tokens: 8_192 }],
        })
      : new Response('down', { status })
  })
  return catalog.url
}

/** A generator that answers without a network: the model ID only names the catalog entry. */
function answer({ event }: GenerateContext): ReadableStream<UIMessageChunk> {
  const id = event.payload.responseMessageId
  return simulateReadableStream<UIMessageChunk>({
    chunks: [
      { type: 'start', messageId: id },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'answer' },
      { type: 'text-end', id: 't' },
      { type: 'finish', finishReason: 'stop' },
    ],
    initialDelayInMs: null,
    chunkDelayInMs: null,
  })
}

const quiet = { info() {}, warn() {}, error() {} }

describe('model metadata', () => {
  it('the first generation with a Gateway model requests its metadata; a separate lane records its limits', async () => {
    const url = await serveCatalog()
    const a = track(
      agent({
        name: 'meta',
        model: 'test/model-a',
        modelCatalog: { url },
        harness: { type: 'ai-sdk', generate: answer, compaction: {} },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'one')))
    await a.runtime.idle()
    await a.session('s').append(...inputs.message(userMessage('m2', 'two')))
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(state.modelMetadata['test/model-a']).toEqual({
      status: 'resolved',
      contextWindow: 128_000,
      maxOutputTokens: 8_192,
    })
    const requested = (await eventsOf(a, 's')).filter(
      (event) => event.type === 'ai.model.metadata.requested',
    )
    expect(requested).toHaveLength(1)
    expect(catalogRequests).toBe(1)
    expect(textOf(state.messages[3])).toBe('answer')
  })

  it('records a model absent from the catalog as unavailable', async () => {
    const url = await serveCatalog()
    const a = track(
      agent({
        name: 'meta',
        model: 'test/not-listed',
        modelCatalog: { url },
        harness: { type: 'ai-sdk', generate: answer, compaction: {} },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'one')))
    await a.runtime.idle()
    expect((await a.session('s').state()).state.modelMetadata['test/not-listed']).toEqual({
      status: 'unavailable',
    })
  })

  it('never delays or fails the generation; a lookup that exhausted its retries stays pending, with no new lookup each turn', async () => {
    const url = await serveCatalog(503)
    const a = track(
      agent({
        name: 'meta',
        model: 'test/model-a',
        modelCatalog: { url },
        harness: { type: 'ai-sdk', generate: answer, compaction: {} },
        retry: { baseDelayMs: 1, maxAttempts: 3 },
        logger: quiet,
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'one')))
    await a.runtime.idle()
    await until(async () => (await a.session('s').state()).state.deadLetters.length === 1)
    await a.session('s').append(...inputs.message(userMessage('m2', 'two')))
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(state.modelMetadata['test/model-a']).toEqual({ status: 'pending' })
    expect(state.messages.map(textOf)).toEqual(['one', 'answer', 'two', 'answer'])
    expect(catalogRequests).toBe(3)
    expect(state.deadLetters[0]).toMatchObject({ lane: 'metadata', attempts: 3 })
  })

  it('Given a catalog that cannot be reached, Then each session asks it once and falls back (limits unknown, no dead letter), and the agent warns once, naming the URL and the cause', async () => {
    // A port nothing listens on: what a machine without a network meets.
    const closed = await serveFetch(() => new Response(null))
    const url = `${closed.url}/v1/models`
    await closed.close()
    const warnings: string[] = []
    const a = track(
      agent({
        name: 'meta',
        model: 'test/model-a',
        modelCatalog: { url },
        harness: { type: 'ai-sdk', generate: answer, compaction: {} },
        retry: { baseDelayMs: 1, maxAttempts: 5 },
        logger: { ...quiet, warn: (line: string) => warnings.push(line) },
      }),
    )
    for (const session of ['s1', 's2', 's3']) {
      await a.session(session).append(...inputs.message(userMessage(`m-${session}`, 'one')))
    }
    await a.runtime.idle()
    for (const session of ['s1', 's2', 's3']) {
      const { state } = await a.session(session).state()
      expect(state.modelMetadata['test/model-a'], session).toEqual({ status: 'unavailable' })
      expect(state.deadLetters, session).toEqual([])
      expect(textOf(state.messages[1])).toBe('answer')
    }
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(
      new RegExp(
        `^a2: The model catalog at ${url} cannot be reached: connect ECONNREFUSED 127\\.0\\.0\\.1:\\d+\\. `,
      ),
    )
  })

  it('a catalog that answers but not with a list says where, and is retried', async () => {
    const url = await serveCatalog(503)
    const failures: string[] = []
    const a = track(
      agent({
        name: 'meta',
        model: 'test/model-a',
        modelCatalog: { url },
        harness: { type: 'ai-sdk', generate: answer, compaction: {} },
        retry: { baseDelayMs: 1, maxAttempts: 2 },
        logger: quiet,
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'one')))
    await until(async () => (await a.session('s').state()).state.deadLetters.length === 1)
    failures.push(...(await a.session('s').state()).state.deadLetters.map((letter) => letter.error))
    expect(failures).toEqual([`The model catalog at ${url} answered 503`])
    expect(catalogRequests).toBe(2)
  })

  it('Given a lookup that exhausted its retries, When readers open the stream, Then it "stays pending without a new lookup": no reader retries it or dead-letters it again', async () => {
    const url = await serveCatalog(503)
    const a = track(
      agent({
        name: 'meta',
        model: 'test/model-a',
        modelCatalog: { url },
        harness: { type: 'ai-sdk', generate: answer, compaction: {} },
        retry: { baseDelayMs: 1, maxAttempts: 3 },
        logger: quiet,
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'one')))
    await until(async () => (await a.session('s').state()).state.deadLetters.length === 1)
    await a.runtime.idle()
    expect(catalogRequests).toBe(3)
    for (let reader = 0; reader < 3; reader++) {
      const controller = new AbortController()
      const response = await a.fetch(
        new Request('http://a2.test/api/agent?sessionId=s', { signal: controller.signal }),
      )
      expect(response.status).toBe(200)
      await a.runtime.idle()
      controller.abort()
    }
    const { state } = await a.session('s').state()
    expect(catalogRequests).toBe(3)
    expect(state.deadLetters).toHaveLength(1)
    expect(state.modelMetadata['test/model-a']).toEqual({ status: 'pending' })
  })

  it('Given a dead-lettered lookup, When a later turn uses another model, Then that model is looked up and the failed one "stays pending without a new lookup each turn"', async () => {
    let down = 2
    catalog = await serveFetch(async () => {
      catalogRequests++
      if (down-- > 0) return new Response('down', { status: 503 })
      return Response.json({
        object: 'list',
        data: [{ id: 'test/model-b', context_window: 64_000 }],
      })
    })
    let model = 'test/model-a'
    const a = track(
      agent({
        name: 'meta',
        model: () => model,
        modelCatalog: { url: catalog.url },
        harness: { type: 'ai-sdk', generate: answer, compaction: {} },
        retry: { baseDelayMs: 1, maxAttempts: 2 },
        logger: quiet,
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'one')))
    await until(async () => (await a.session('s').state()).state.deadLetters.length === 1)
    model = 'test/model-b'
    await a.session('s').append(...inputs.message(userMessage('m2', 'two')))
    await until(
      async () =>
        (await a.session('s').state()).state.modelMetadata['test/model-b']?.status === 'resolved',
    )
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(state.modelMetadata).toEqual({
      'test/model-a': { status: 'pending' },
      'test/model-b': { status: 'resolved', contextWindow: 64_000 },
    })
    expect(catalogRequests).toBe(3)
  })

  it('looks nothing up with compaction: false, for AI SDK model objects, or for a custom generate without compaction', async () => {
    const url = await serveCatalog()
    for (const harness of [
      { type: 'ai-sdk' as const, generate: answer, compaction: false as const },
      { type: 'ai-sdk' as const, generate: answer },
    ]) {
      const a = track(
        agent({ name: 'meta', model: 'test/model-a', modelCatalog: { url }, harness }),
      )
      await a.session('s').append(...inputs.message(userMessage('m1', 'one')))
      await a.runtime.idle()
      expect((await a.session('s').state()).state.modelMetadata).toEqual({})
    }
    expect(catalogRequests).toBe(0)
  })

  it('Given a compaction resolver, Then the catalog is looked up only for a generation whose setting compacts', async () => {
    const url = await serveCatalog()
    let compact = false
    const a = track(
      agent({
        name: 'meta',
        model: 'test/model-a',
        modelCatalog: { url },
        harness: { type: 'ai-sdk', generate: answer, compaction: () => (compact ? {} : false) },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'one')))
    await a.runtime.idle()
    expect((await a.session('s').state()).state.modelMetadata).toEqual({})
    compact = true
    await a.session('s').append(...inputs.message(userMessage('m2', 'two')))
    await a.runtime.idle()
    expect((await a.session('s').state()).state.modelMetadata['test/model-a']).toMatchObject({
      status: 'resolved',
    })
    expect(catalogRequests).toBe(1)
  })

  it('a lookup that answers after the session was erased records nothing: the erased session stays empty', async () => {
    // Found by the simulator (seed 3029): the answer started the erased session over.
    let answerLookup: (response: Response) => void = () => {}
    const a = track(
      agent({
        name: 'meta',
        model: 'test/model-a',
        modelCatalog: {
          url: 'http://catalog.test/v1/models',
          fetch: () => new Promise<Response>((resolve) => (answerLookup = resolve)),
        },
        harness: { type: 'ai-sdk', generate: answer, compaction: {} },
        logger: quiet,
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'one')))
    await until(async () => {
      const { state } = await a.session('s').state()
      return state.active === null && state.messages.length === 2
    })
    await a.session('s').erase()
    answerLookup(
      Response.json({ data: [{ id: 'test/model-a', context_window: 128_000, max_tokens: 8_192 }] }),
    )
    await a.runtime.idle()
    expect(await eventsOf(a, 's')).toEqual([])
  })
})
