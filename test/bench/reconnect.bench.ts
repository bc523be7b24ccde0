/**
 * Reconnect cost of a long session (issue 6): bytes and time for a client to
 * be current again on a 10,000-event session, hydrating from a server
 * snapshot and tailing what came after it, against replaying the whole log
 * over SSE. Both in one run, on a real HTTP server on loopback.
 *
 *   npm run bench -- reconnect
 */

import { agent } from '../../shared/agent/index.ts'
import { createAgentClient } from '../../shared/client/index.ts'
import { type LocalServer, serveFetch } from '../../shared/node/serve.ts'
import { memoryEventStore } from '../../shared/stores/memory/memory-event-store.ts'
import { recordSession } from '../support/recorded-session.ts'

const EVENTS = 10_000
/** The snapshot the page was rendered with is this many events old. */
const BEHIND = 50
const ROUNDS = 7

const store = memoryEventStore()
const recorded = recordSession(EVENTS, 450, 'long')
for (let at = 0; at < recorded.length; at += 48) {
  await store.append(
    'long',
    recorded.slice(at, at + 48).map(({ id, type, payload }) => ({ id, type, payload })),
  )
}
const assistant = agent({ name: 'bench', model: 'unused/model', store })
let received = 0
const server: LocalServer = await serveFetch((request) => assistant.fetch(request))
const api = `${server.url}/api/agent`

/** A fetch that counts the bytes the client reads. */
const counting: typeof fetch = async (input, init) => {
  const response = await fetch(input, init)
  if (!response.body) return response
  const counted = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        received += chunk.byteLength
        controller.enqueue(chunk)
      },
    }),
  )
  return new Response(counted, { status: response.status, headers: response.headers })
}

async function current(initial?: { state: unknown; index: number }): Promise<void> {
  const client = createAgentClient({ api, fetch: counting })
  const session = client.session('long')
  if (initial) session.hydrate(initial as never)
  await new Promise<void>((resolve) => {
    const unsubscribe = session.subscribe(() => {
      if (session.getSnapshot().caughtUp) {
        unsubscribe()
        resolve()
      }
    })
  })
  client.dispose()
}

const replay: { ms: number; bytes: number }[] = []
const hydrated: { ms: number; bytes: number }[] = []
// The snapshot an older render saw: fold the log up to EVENTS - BEHIND.
const { state: behindState } = await (async () => {
  const partial = memoryEventStore()
  for (let at = 0; at < EVENTS - BEHIND; at += 48) {
    await partial.append(
      'long',
      recorded
        .slice(at, Math.min(at + 48, EVENTS - BEHIND))
        .map(({ id, type, payload }) => ({ id, type, payload })),
    )
  }
  return agent({ name: 'bench', model: 'unused/model', store: partial }).session('long').state()
})()
const stale = { state: behindState, index: EVENTS - BEHIND }
const staleBytes = JSON.stringify(stale).length

for (let round = 0; round < ROUNDS + 1; round++) {
  received = 0
  let started = performance.now()
  await current()
  const replayRound = { ms: performance.now() - started, bytes: received }
  received = staleBytes // the snapshot arrived with the page
  started = performance.now()
  await current(stale)
  const hydratedRound = { ms: performance.now() - started, bytes: received }
  if (round === 0) continue // warm-up
  replay.push(replayRound)
  hydrated.push(hydratedRound)
}
const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN
const replayMs = median(replay.map((r) => r.ms))
const hydratedMs = median(hydrated.map((r) => r.ms))
const replayBytes = median(replay.map((r) => r.bytes))
const hydratedBytes = median(hydrated.map((r) => r.bytes))
console.log(
  `Reconnect to a ${EVENTS.toLocaleString()}-event session (${ROUNDS} rounds, loopback HTTP)`,
)
console.log(
  `  replay the whole log over SSE   ${replayMs.toFixed(0)} ms  ${(replayBytes / 1024).toFixed(0)} KiB`,
)
console.log(
  `  snapshot + tail of ${BEHIND} events    ${hydratedMs.toFixed(0)} ms  ${(hydratedBytes / 1024).toFixed(0)} KiB (snapshot ${(staleBytes / 1024).toFixed(0)} KiB)`,
)
console.log(
  `  ratio                           ${(replayMs / hydratedMs).toFixed(1)}x faster, ${(replayBytes / hydratedBytes).toFixed(1)}x fewer bytes`,
)
console.log(
  `BENCH_RESULT ${JSON.stringify({ bench: 'reconnect', events: EVENTS, behind: BEHIND, replayMs, hydratedMs, replayBytes, hydratedBytes })}`,
)
assistant.runtime.close()
await server.close()
