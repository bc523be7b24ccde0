import { readUIMessageStream, type UIMessageChunk } from 'ai'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  coalesceDeltas,
  progressBatcher,
} from '../../../../shared/agent/model-step/progress-batcher.ts'

const delta = (n: number): UIMessageChunk => ({ type: 'text-delta', id: 't', delta: `<${n}>` })

describe('the progress batcher', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  function recorder() {
    const writes: { at: number; chunks: UIMessageChunk[] }[] = []
    const batcher = progressBatcher(async (chunks) => {
      writes.push({ at: Date.now(), chunks })
    })
    return { writes, batcher }
  }

  it('writes the first content chunk at once, with the opening chunks that came before it', async () => {
    const { writes, batcher } = recorder()
    const start = Date.now()
    batcher.push({ type: 'start' })
    batcher.push({ type: 'start-step' })
    batcher.push({ type: 'text-start', id: 't' })
    await vi.advanceTimersByTimeAsync(1_000)
    // The model has not said anything yet: nothing is written for the openers alone.
    expect(writes).toEqual([])
    batcher.push(delta(0))
    await vi.advanceTimersByTimeAsync(0)
    expect(writes.map((write) => write.chunks.map((chunk) => chunk.type))).toEqual([
      ['start', 'start-step', 'text-start', 'text-delta'],
    ])
    expect(writes[0]?.at).toBe(start + 1_000)
    await batcher.writeRemaining()
  })

  it('waits for company in windows that grow from 50 ms to 250 ms', async () => {
    const { writes, batcher } = recorder()
    batcher.push(delta(0))
    const first = Date.now()
    // A token every 10 ms for 2 s.
    for (let n = 1; n <= 200; n++) {
      await vi.advanceTimersByTimeAsync(10)
      batcher.push(delta(n))
    }
    await batcher.writeRemaining()
    const gaps = writes.slice(1).map((write, i) => write.at - (writes[i]?.at ?? first))
    expect(gaps.slice(0, 4)).toEqual([60, 100, 200, 250])
    expect(Math.max(...gaps)).toBeLessThanOrEqual(260)
    // 201 tokens in ~11 writes instead of one per 50 ms window (41).
    expect(writes.length).toBeLessThanOrEqual(12)
    expect(writes.flatMap((write) => write.chunks)).toHaveLength(writes.length)
  })

  it('writes at once when maxChunks collect, whatever the window', async () => {
    const writes: UIMessageChunk[][] = []
    const batcher = progressBatcher(
      async (chunks) => {
        writes.push(chunks)
      },
      { maxChunks: 3 },
    )
    batcher.push({ type: 'tool-input-start', toolCallId: 'c1', toolName: 'look' })
    for (const chunk of [
      { type: 'source-url', sourceId: 's1', url: 'https://a.example' },
      { type: 'source-url', sourceId: 's2', url: 'https://b.example' },
      { type: 'source-url', sourceId: 's3', url: 'https://c.example' },
    ] as UIMessageChunk[])
      batcher.push(chunk)
    await vi.advanceTimersByTimeAsync(0)
    expect(writes.map((chunks) => chunks.length)).toEqual([1, 3])
    await batcher.writeRemaining()
  })
})

describe('coalescing deltas', () => {
  it('joins consecutive deltas of one part and leaves everything else as it was', () => {
    expect(
      coalesceDeltas([
        { type: 'text-delta', id: 't', delta: 'Hel' },
        { type: 'text-delta', id: 't', delta: 'lo' },
        { type: 'reasoning-delta', id: 'r', delta: 'hm' },
        { type: 'text-delta', id: 't', delta: '!' },
        { type: 'text-delta', id: 'u', delta: '?' },
        { type: 'tool-input-delta', toolCallId: 'c', inputTextDelta: '{"a"' },
        { type: 'tool-input-delta', toolCallId: 'c', inputTextDelta: ':1}' },
        { type: 'text-delta', id: 'u', delta: 'x', providerMetadata: { p: { k: 1 } } },
        { type: 'text-delta', id: 'u', delta: 'y' },
      ]),
    ).toEqual([
      { type: 'text-delta', id: 't', delta: 'Hello' },
      { type: 'reasoning-delta', id: 'r', delta: 'hm' },
      { type: 'text-delta', id: 't', delta: '!' },
      { type: 'text-delta', id: 'u', delta: '?' },
      { type: 'tool-input-delta', toolCallId: 'c', inputTextDelta: '{"a":1}' },
      { type: 'text-delta', id: 'u', delta: 'x', providerMetadata: { p: { k: 1 } } },
      { type: 'text-delta', id: 'u', delta: 'y' },
    ])
  })

  it("reads the same as the original chunks through the AI SDK's readUIMessageStream", async () => {
    const chunks: UIMessageChunk[] = [
      { type: 'start', messageId: 'a1' },
      { type: 'start-step' },
      { type: 'reasoning-start', id: 'r' },
      ...['Let', ' me', ' see'].map(
        (d): UIMessageChunk => ({ type: 'reasoning-delta', id: 'r', delta: d }),
      ),
      { type: 'reasoning-end', id: 'r' },
      { type: 'text-start', id: 't' },
      ...['The', ' answer', ' is', ' 4', '.'].map(
        (d): UIMessageChunk => ({ type: 'text-delta', id: 't', delta: d }),
      ),
      { type: 'text-end', id: 't' },
      { type: 'tool-input-start', toolCallId: 'c1', toolName: 'look' },
      ...['{"q"', ':"', 'x"}'].map(
        (d): UIMessageChunk => ({ type: 'tool-input-delta', toolCallId: 'c1', inputTextDelta: d }),
      ),
      { type: 'tool-input-available', toolCallId: 'c1', toolName: 'look', input: { q: 'x' } },
      { type: 'finish-step' },
      { type: 'finish' },
    ]
    const read = async (list: UIMessageChunk[]) => {
      let last: unknown
      const stream = new ReadableStream<UIMessageChunk>({
        start(controller) {
          for (const chunk of list) controller.enqueue(chunk)
          controller.close()
        },
      })
      for await (const message of readUIMessageStream({ stream })) last = message
      return last
    }
    const coalesced = coalesceDeltas(chunks)
    expect(coalesced.length).toBeLessThan(chunks.length - 6)
    expect(await read(coalesced)).toEqual(await read(chunks))
  })
})
