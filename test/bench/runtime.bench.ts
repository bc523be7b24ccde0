/**
 * Runtime benchmarks (issue 4), all in one run so figures are ratios against
 * a baseline measured beside them:
 *
 * 1. Overhead: POST of a message to the first streamed chunk on SSE, against
 *    calling `streamText` directly with the same scripted model.
 * 2. Appends per 1,000 streamed chunks at the default batching, and the delay
 *    batching adds: from the model emitting a chunk to its progress event
 *    being stored.
 *
 *   npm run bench -- runtime
 */
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { streamText } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { inputs } from '../../shared/ai/index.ts'
import { agent } from '../../shared/ai/server/index.ts'
import type { EventStore, StoredEvent } from '../../shared/index.ts'
import { memoryEventStore } from '../../shared/stores/memory/memory-event-store.ts'

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
}

/** A model that streams `count` deltas, `gapMs` apart, recording when it emitted each. */
function pacedModel(count: number, gapMs: number, emitted: number[] = []) {
  return new MockLanguageModelV4({
    doStream: async () => ({
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        async start(controller) {
          controller.enqueue({ type: 'stream-start', warnings: [] })
          controller.enqueue({ type: 'text-start', id: 't' })
          for (let i = 0; i < count; i++) {
            emitted[i] = performance.now()
            controller.enqueue({ type: 'text-delta', id: 't', delta: `<${i}>` })
            if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs))
          }
          controller.enqueue({ type: 'text-end', id: 't' })
          controller.enqueue({
            type: 'finish',
            finishReason: { unified: 'stop', raw: 'stop' },
            usage,
          })
          controller.close()
        },
      }),
    }),
  })
}

const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN
}
const fmt = (ms: number): string => `${ms.toFixed(2)} ms`

async function directFirstChunk(): Promise<number> {
  const started = performance.now()
  const result = streamText({ model: pacedModel(20, 0), prompt: 'Hi' })
  for await (const _chunk of result.textStream) return performance.now() - started
  throw new Error('no chunk')
}

async function a2FirstChunk(run: number): Promise<number> {
  const a = agent({ name: 'bench', model: pacedModel(20, 0) })
  const sessionId = `overhead-${run}`
  const base = `http://bench.test/api/agent?sessionId=${sessionId}`
  const controller = new AbortController()
  const stream = await a.fetch(new Request(base, { signal: controller.signal }))
  const reader = (stream.body as ReadableStream<Uint8Array>).getReader()
  const decoder = new TextDecoder()
  const started = performance.now()
  const posted = a.fetch(
    new Request(base, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        events: inputs.message({
          id: `m-${run}`,
          role: 'user',
          parts: [{ type: 'text', text: 'Hi' }],
        }),
      }),
    }),
  )
  let text = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) throw new Error('stream ended')
    text += decoder.decode(value, { stream: true })
    if (text.includes('"ai.generation.progress"')) break
  }
  const elapsed = performance.now() - started
  await posted
  controller.abort()
  await reader.cancel().catch(() => undefined)
  await a.runtime.idle()
  a.runtime.close()
  return elapsed
}

async function batching(chunks: number, gapMs: number) {
  const emitted: number[] = []
  const storedAt = new Map<number, number>()
  const inner = memoryEventStore()
  let progressAppends = 0
  const store: EventStore = {
    ...inner,
    async append(sessionId, events, options) {
      const result = await inner.append(sessionId, events, options)
      const now = performance.now()
      for (const event of result.events as StoredEvent[]) {
        if (event.type !== 'ai.generation.progress') continue
        progressAppends++
        for (const chunk of (event.payload as { chunks: { type: string; delta?: string }[] })
          .chunks) {
          const match = chunk.type === 'text-delta' ? /^<(\d+)>$/.exec(chunk.delta ?? '') : null
          if (match) storedAt.set(Number(match[1]), now)
        }
      }
      return result
    },
  }
  const a = agent({ name: 'bench', model: pacedModel(chunks, gapMs, emitted), store })
  await a
    .session('s')
    .append(...inputs.message({ id: 'm', role: 'user', parts: [{ type: 'text', text: 'go' }] }))
  await a.runtime.idle()
  a.runtime.close()
  const delays = emitted.map((at, i) => (storedAt.get(i) ?? Number.NaN) - at)
  return { progressAppends, delays }
}

// Warm up both paths (JIT, module init), then interleave.
for (let i = 0; i < 5; i++) {
  await directFirstChunk()
  await a2FirstChunk(-i - 1)
}
const direct: number[] = []
const durable: number[] = []
for (let i = 0; i < 40; i++) {
  direct.push(await directFirstChunk())
  durable.push(await a2FirstChunk(i))
}
const directP50 = quantile(direct, 0.5)
const durableP50 = quantile(durable, 0.5)

const { progressAppends, delays } = await batching(1000, 2)
const perThousand = progressAppends
const delayP50 = quantile(delays, 0.5)
const delayP90 = quantile(delays, 0.9)

console.log('Time to first chunk (40 interleaved runs, embedded runtime, scripted model)')
console.log(`  streamText directly        p50 ${fmt(directP50)}  p90 ${fmt(quantile(direct, 0.9))}`)
console.log(
  `  POST -> first SSE chunk    p50 ${fmt(durableP50)}  p90 ${fmt(quantile(durable, 0.9))}`,
)
console.log(
  `  added by A2                ${fmt(durableP50 - directP50)}  (ratio ${(durableP50 / directP50).toFixed(2)}x)`,
)
console.log('Batching of 1,000 chunks streamed 2 ms apart, default settings')
console.log(`  progress appends           ${perThousand} per 1,000 chunks (target <= 50)`)
console.log(
  `  added delay per chunk      p50 ${fmt(delayP50)}  p90 ${fmt(delayP90)} (target p50 <= 100 ms)`,
)
console.log(
  `BENCH_RESULT ${JSON.stringify({
    bench: 'runtime',
    firstChunk: {
      directP50,
      durableP50,
      addedMs: durableP50 - directP50,
      ratio: durableP50 / directP50,
    },
    batching: { appendsPer1000Chunks: perThousand, delayP50, delayP90 },
  })}`,
)
if (perThousand > 50 || delayP50 > 100) process.exitCode = 1
