import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { applyUIMessageChunks, emptyCursor } from '../../../../shared/model/state/apply-chunks.ts'
import { chunkSequence } from '../../../support/chunk-arbitrary.ts'

// The SDK publishes a snapshot only on chunks that `write()`; `start-step`
// does not, so a sequence ending in one would hide it. A final text part makes
// the last snapshot carry everything, for the reducer and the SDK alike.
const sentinel: UIMessageChunk = { type: 'text-start', id: 'sentinel' }

async function viaSdk(initial: UIMessage, chunks: UIMessageChunk[]): Promise<UIMessage> {
  // readUIMessageStream() mutates the message it starts from.
  const message = structuredClone(initial)
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of [...structuredClone(chunks), sentinel]) controller.enqueue(chunk)
      controller.close()
    },
  })
  let last = message
  let failure: unknown
  for await (const snapshot of readUIMessageStream({
    message,
    stream,
    onError: (error) => {
      failure = error
    },
  })) {
    last = snapshot
  }
  if (failure && !(failure instanceof Error && failure.message === 'provider error')) throw failure
  return last
}

// JSON is what snapshots and SSE carry; it also drops `undefined` keys.
const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

function viaReducer(message: UIMessage, batches: UIMessageChunk[][]): UIMessage {
  let state = { message, cursor: emptyCursor() }
  for (const batch of [...batches, [sentinel]]) {
    state = applyUIMessageChunks(state.message, state.cursor, batch)
  }
  return state.message
}

function split(chunks: UIMessageChunk[], cuts: number[]): UIMessageChunk[][] {
  const points = [...new Set(cuts.map((cut) => cut % (chunks.length + 1)))].sort((a, b) => a - b)
  const batches: UIMessageChunk[][] = []
  let from = 0
  for (const point of points) {
    batches.push(chunks.slice(from, point))
    from = point
  }
  batches.push(chunks.slice(from))
  return batches
}

describe('applying UIMessageChunks gives what the AI SDK (useChat) shows', () => {
  it('Given a text stream, When it is applied, Then the message equals readUIMessageStream()', async () => {
    const start: UIMessage = { id: 'r1', role: 'assistant', parts: [] }
    const chunks: UIMessageChunk[] = [
      { type: 'start', messageId: 'r1' },
      { type: 'start-step' },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Hello' },
      { type: 'text-delta', id: 't', delta: ', world' },
      { type: 'text-end', id: 't' },
      { type: 'finish-step' },
      { type: 'finish' },
    ]
    const expected = await viaSdk(start, chunks)
    expect(json(viaReducer(start, [chunks]))).toEqual(json(expected))
    expect(expected.parts).toContainEqual(
      expect.objectContaining({ type: 'text', text: 'Hello, world' }),
    )
  })

  it('Given random valid chunk sequences split into random batches, Then the result equals readUIMessageStream() (1,000 runs)', async () => {
    await fc.assert(
      fc.asyncProperty(
        chunkSequence,
        fc.array(fc.nat(), { maxLength: 5 }),
        async (chunks, cuts) => {
          const start: UIMessage = { id: 'r1', role: 'assistant', parts: [] }
          const expected = await viaSdk(start, chunks)
          expect(json(viaReducer(start, split(chunks, cuts)))).toEqual(json(expected))
        },
      ),
      { numRuns: 1000 },
    )
  })

  it('Given a batch, When it is applied, Then the input message is not mutated', () => {
    const start: UIMessage = {
      id: 'r1',
      role: 'assistant',
      parts: [{ type: 'text', text: 'Hi', state: 'streaming' }],
    }
    const before = structuredClone(start)
    const cursor = { activeText: { t: 0 }, activeReasoning: {}, partialToolCalls: {} }
    applyUIMessageChunks(start, cursor, [
      { type: 'text-delta', id: 't', delta: '!' },
      { type: 'text-end', id: 't' },
    ])
    expect(start).toEqual(before)
    expect(cursor.activeText).toEqual({ t: 0 })
  })

  it('Given a delta for a part that never started, When it is applied, Then the chunk is skipped instead of breaking the fold', () => {
    const start: UIMessage = { id: 'r1', role: 'assistant', parts: [] }
    const { message } = applyUIMessageChunks(start, emptyCursor(), [
      { type: 'text-delta', id: 'missing', delta: 'x' },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'ok' },
    ])
    expect(message.parts).toEqual([
      { type: 'text', text: 'ok', state: 'streaming', providerMetadata: undefined },
    ])
  })
})
