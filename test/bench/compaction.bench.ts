/**
 * Prompt size per turn over a 200-turn conversation, with compaction and
 * without, in one run (issue 7). A scripted model answers each turn with a
 * paragraph and each summary request with a short summary; the figures are
 * the bytes of the prompts the model received.
 *
 *   npm run bench -- compaction
 */
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { simulateReadableStream } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { agent } from '../../shared/agent/index.ts'
import { inputs } from '../../shared/ai.ts'

const TURNS = 200
const ANSWER =
  'Here is a detailed answer with several facts, IDs such as T-1042, and next steps. '.repeat(6)

function model(prompts: number[]) {
  return new MockLanguageModelV4({
    doStream: async (options: LanguageModelV4CallOptions) => {
      const size = JSON.stringify(options.prompt).length
      const summary = options.toolChoice?.type === 'none'
      if (!summary) prompts.push(size)
      const inputTokens = Math.ceil(size / 4)
      const parts: LanguageModelV4StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 't' },
        {
          type: 'text-delta',
          id: 't',
          delta: summary ? 'Summary: the user asked many questions; all answered.' : ANSWER,
        },
        { type: 'text-end', id: 't' },
        {
          type: 'finish',
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: {
            inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 100, text: 100, reasoning: 0 },
          },
        },
      ]
      return {
        stream: simulateReadableStream({
          chunks: parts,
          initialDelayInMs: null,
          chunkDelayInMs: null,
        }),
      }
    },
  })
}

async function conversation(compaction: false | { thresholdTokens: number }) {
  const prompts: number[] = []
  const a = agent({ name: 'bench', model: model(prompts), harness: { type: 'ai-sdk', compaction } })
  const started = performance.now()
  for (let turn = 1; turn <= TURNS; turn++) {
    await a.session('s').append(
      ...inputs.message({
        id: `u-${compaction ? 'c' : 'n'}-${turn}`,
        role: 'user',
        parts: [{ type: 'text', text: `Question ${turn}?` }],
      }),
    )
    await a.runtime.idle()
  }
  const seconds = (performance.now() - started) / 1000
  const { state } = await a.session('s').state()
  a.runtime.close()
  const total = prompts.reduce((sum, size) => sum + size, 0)
  return {
    prompts,
    total,
    mean: total / prompts.length,
    max: Math.max(...prompts),
    last: prompts.at(-1) ?? 0,
    seconds,
    messages: state.messages.length,
  }
}

const without = await conversation(false)
const withCompaction = await conversation({ thresholdTokens: 4_000 })
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`
console.log(`Prompt bytes per turn over ${TURNS} turns (scripted model, ~520-byte answers)`)
console.log(
  `  without compaction   mean ${kb(without.mean)}  last ${kb(without.last)}  total ${kb(without.total)}  (${without.seconds.toFixed(1)} s)`,
)
console.log(
  `  with compaction      mean ${kb(withCompaction.mean)}  last ${kb(withCompaction.last)}  max ${kb(withCompaction.max)}  total ${kb(withCompaction.total)}  (${withCompaction.seconds.toFixed(1)} s)`,
)
console.log(
  `  ratio (total sent)   ${(without.total / withCompaction.total).toFixed(1)}x less with compaction; state.messages kept: ${withCompaction.messages} of ${without.messages}`,
)
console.log(
  `BENCH_RESULT ${JSON.stringify({
    bench: 'compaction',
    turns: TURNS,
    without: { mean: without.mean, last: without.last, total: without.total },
    with: {
      mean: withCompaction.mean,
      last: withCompaction.last,
      max: withCompaction.max,
      total: withCompaction.total,
    },
    ratio: without.total / withCompaction.total,
  })}`,
)
