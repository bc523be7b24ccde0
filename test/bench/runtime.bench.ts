/**
 * Runtime benchmarks (issues 4 and 12), all in one run so figures are ratios
 * against a baseline measured beside them:
 *
 * 1. Time to the first *text* token: a POST of a message to the first SSE
 *    frame that carries text, against calling `streamText` directly with the
 *    same scripted model, whose first token comes after 300 ms (a model's
 *    time to first token) or at once (what A2 adds, in ms).
 * 2. Appends per 1,000 streamed chunks at the default batching, for tokens
 *    20 ms apart (50 tokens/s) and 5 ms apart, and the delay batching adds:
 *    from the model emitting a token to its progress event being stored.
 *
 *   npm run bench -- runtime
 */
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { streamText } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { agent } from '../../shared/agent/index.ts'
import { inputs } from '../../shared/ai.ts'
import type { EventStore, StoredEvent } from '../../shared/index.ts'
import { memoryEventStore } from '../../shared/stores/memory/memory-event-store.ts'

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * A model that streams `count` deltas (`<i>`), the first after `firstMs`,
 * then `gapMs` apart, recording when it emitted each.
 */
function pacedModel(count: number, gapMs: number, emitted: number[] = [], firstMs = 0) {
  return new MockLanguageModelV4({
    doStream: async () => ({
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        async start(controller) {
          controller.enqueue({ type: 'stream-start', warnings: [] })
          controller.enqueue({ type: 'text-start', id: 't' })
          if (firstMs > 0) await sleep(firstMs)
          for (let i = 0; i < count; i++) {
            emitted[i] = performance.now()
            controller.enqueue({ type: 'text-delta', id: 't', delta: `<${i}>` })
            if (gapMs > 0) await sleep(gapMs)
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

async function directFirstToken(firstMs: number): Promise<number> {
  const started = performance.now()
  const result = streamText({ model: pacedModel(20, 0, [], firstMs), prompt: 'Hi' })
  for await (const _text of result.textStream) return performance.now() - started
  throw new Error('no token')
}

async function a2FirstToken(run: number, firstMs: number): Promise<number> {
  const a = agent({ name: 'bench', model: pacedModel(20, 0, [], firstMs) })
  const sessionId = `first-token-${run}`
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
    // A progress frame that carries text, not just the message's opening chunks.
    if (/"ai\.generation\.progress".*"text-delta"/.test(text)) break
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
          if (chunk.type !== 'text-delta') continue
          // Deltas of one batch are stored as one: every token in it counts.
          for (const match of (chunk.delta ?? '').matchAll(/<(\d+)>/g))
            storedAt.set(Number(match[1]), now)
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

/** Interleaved runs of both paths; p50s and their ratio. */
async function firstToken(firstMs: number, runs: number) {
  for (let i = 0; i < 3; i++) {
    await directFirstToken(firstMs)
    await a2FirstToken(-i - 1 - firstMs, firstMs)
  }
  const direct: number[] = []
  const durable: number[] = []
  for (let i = 0; i < runs; i++) {
    direct.push(await directFirstToken(firstMs))
    durable.push(await a2FirstToken(i + firstMs * 1000, firstMs))
  }
  const directP50 = quantile(direct, 0.5)
  const durableP50 = quantile(durable, 0.5)
  return {
    directP50,
    durableP50,
    directP90: quantile(direct, 0.9),
    durableP90: quantile(durable, 0.9),
    addedMs: durableP50 - directP50,
    ratio: durableP50 / directP50,
  }
}

const atOnce = await firstToken(0, 30)
const at300 = await firstToken(300, 15)
const paced20 = await batching(1000, 20)
const paced5 = await batching(1000, 5)
const delays = (run: { delays: number[] }) => ({
  p50: quantile(run.delays, 0.5),
  p90: quantile(run.delays, 0.9),
})

console.log(
  'Time to the first text token on SSE (embedded runtime, scripted model, interleaved runs)',
)
for (const [label, run] of [
  ['first token after 300 ms', at300],
  ['first token at once', atOnce],
] as const) {
  console.log(`  ${label}`)
  console.log(`    streamText directly      p50 ${fmt(run.directP50)}  p90 ${fmt(run.directP90)}`)
  console.log(
    `    POST -> first text on SSE p50 ${fmt(run.durableP50)}  p90 ${fmt(run.durableP90)}`,
  )
  console.log(`    added by A2              ${fmt(run.addedMs)}  (ratio ${run.ratio.toFixed(3)}x)`)
}
console.log('Batching of 1,000 tokens, default settings')
for (const [label, run] of [
  ['20 ms apart (50 tokens/s)', paced20],
  ['5 ms apart (200 tokens/s)', paced5],
] as const) {
  const { p50, p90 } = delays(run)
  console.log(
    `  ${label}: ${run.progressAppends} progress appends; delay p50 ${fmt(p50)}, p90 ${fmt(p90)}`,
  )
}
console.log(
  'Targets: ratio <= 1.05 at 300 ms; <= 100 appends at 20 ms, <= 50 at 5 ms; delay p50 <= 150 ms',
)
console.log(
  `BENCH_RESULT ${JSON.stringify({
    bench: 'runtime',
    firstToken: { at300, atOnce },
    batching: {
      paced20ms: { appends: paced20.progressAppends, ...delays(paced20) },
      paced5ms: { appends: paced5.progressAppends, ...delays(paced5) },
    },
  })}`,
)
if (
  at300.ratio > 1.05 ||
  paced20.progressAppends > 100 ||
  paced5.progressAppends > 50 ||
  delays(paced20).p50 > 150 ||
  delays(paced5).p50 > 150
)
  process.exitCode = 1
