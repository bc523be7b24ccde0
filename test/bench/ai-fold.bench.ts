// Fold throughput of reduceAIState, and the cost of one progress event as the
// transcript grows. Run with Node 22 (type stripping):
//   node_modules/.bin/node test/bench/ai-fold.bench.ts
// Not part of `npm test`: timings depend on the machine.

import { type AIState, initialAIState, inputs, reduceAIState } from '../../shared/ai.ts'
import type { StoredEvent } from '../../shared/log/event.ts'
import { advance } from '../../shared/model/controller/advance.ts'
import { decide } from '../../shared/model/controller/decide.ts'
import { dueGeneration } from '../../shared/model/controller/due-work.ts'
import { CHUNKS_PER_PROGRESS, recordSession } from '../support/recorded-session.ts'

function fold(events: readonly StoredEvent[], from: AIState = initialAIState()): AIState {
  let state = from
  for (const event of events) state = reduceAIState(state, event)
  return state
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}

// 1. Throughput over a recorded 10,000-event session with long responses.
const session = recordSession(10_000, 450)
const progressEvents = session.filter((event) => event.type === 'ai.generation.progress').length
const finalState = fold(session)
const textBytes = JSON.stringify(finalState.messages).length
const runs: number[] = []
for (let run = 0; run < 7; run++) {
  const started = performance.now()
  fold(session)
  runs.push(performance.now() - started)
}
const foldMs = median(runs)
console.log(
  `fold: ${session.length} events (${progressEvents} progress, ${finalState.messages.length} messages, ${(textBytes / 1024).toFixed(0)} KiB transcript) in ${foldMs.toFixed(1)} ms = ${Math.round(session.length / (foldMs / 1000)).toLocaleString('en-US')} events/s`,
)

// 2. One progress event applied to a transcript of 20 vs 200 messages.
function progressCost(messages: number): number {
  const turns = messages / 2
  const log: StoredEvent[] = []
  let state: AIState = initialAIState()
  const append = (events: readonly { id?: string; type: string; payload: unknown }[]): void => {
    for (const event of events) {
      const stored = {
        id: event.id ?? `e${log.length}`,
        type: event.type,
        payload: event.payload,
        sessionId: 'b',
        life: '',
        index: log.length + 1,
        timestamp: 0,
      }
      log.push(stored)
      state = reduceAIState(state, stored)
    }
  }
  for (let turn = 1; turn <= turns + 1; turn++) {
    const [command] = inputs.message({
      id: `u${turn}`,
      role: 'user',
      parts: [{ type: 'text', text: `Q${turn}` }],
    })
    append([command as never])
    append(decide(state, log.at(-1) as never).events)
    const due = dueGeneration(state)
    if (due === null) throw new Error('no generation due')
    const generationId = `g${turn}`
    append([
      {
        id: `s${turn}`,
        type: 'ai.generation.started',
        payload: { generationId, ...due, attempt: 1 },
      },
    ])
    append([
      {
        id: `p${turn}`,
        type: 'ai.generation.progress',
        payload: {
          generationId,
          chunks: [
            { type: 'start-step' },
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: 'x'.repeat(2000) },
          ],
        },
      },
    ])
    if (turn <= turns) {
      append([
        {
          id: `pe${turn}`,
          type: 'ai.generation.progress',
          payload: { generationId, chunks: [{ type: 'text-end', id: 't' }] },
        },
      ])
      append([
        {
          id: `d${turn}`,
          type: 'ai.generation.completed',
          payload: { generationId, requestId: due.requestId, outcome: 'success' },
        },
      ])
      append(advance(state))
    }
  }
  if (state.messages.length !== messages + 2) throw new Error(`expected ${messages + 2} messages`)
  const event: StoredEvent = {
    id: 'bench-progress',
    type: 'ai.generation.progress',
    payload: {
      generationId: `g${turns + 1}`,
      chunks: Array.from({ length: CHUNKS_PER_PROGRESS }, () => ({
        type: 'text-delta',
        id: 't',
        delta: 'token ',
      })),
    },
    sessionId: 'b',
    life: '',
    index: log.length + 1,
    timestamp: 0,
  }
  const iterations = 20_000
  const samples: number[] = []
  for (let sample = 0; sample < 9; sample++) {
    const started = performance.now()
    for (let i = 0; i < iterations; i++) reduceAIState(state, event)
    samples.push(((performance.now() - started) * 1e6) / iterations)
  }
  return median(samples)
}

// Warm up both shapes first so the JIT does not favour the first one measured.
progressCost(20)
progressCost(200)
const at20 = progressCost(20)
const at200 = progressCost(200)
console.log(
  `one progress event (${CHUNKS_PER_PROGRESS} chunks): ${at20.toFixed(0)} ns at 20 messages, ${at200.toFixed(0)} ns at 200 messages, ratio 200/20 = ${(at200 / at20).toFixed(2)}`,
)
