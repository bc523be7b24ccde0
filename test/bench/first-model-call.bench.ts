/**
 * From a user's POST to the model being called (issue 34, "Fewer hops
 * before the model"), on the local pipeline runner: the hops the message
 * crosses, in order, and how long it takes, for a plain message (the POST
 * decides it where it writes it and wakes the model step) against the
 * baseline measured in the same run, the same POST carrying one app event
 * beside the message, which the POST leaves to admission: the path every
 * message took before (POST, admission's queue, admission, the generation
 * queue, generation). One run on the moto server, interleaved rounds, warm
 * sessions (each round's session has had a turn before).
 *
 *   npm run bench -- first-model-call
 */
import { z } from 'zod'
import { startLocalPipeline } from '../../functions/local/runner/local-pipeline.ts'
import { startMotoServer } from '../../functions/local/runner/moto-server.ts'
import { createLocalResources } from '../../functions/local/runner/resources.ts'
import { agent } from '../../shared/agent/index.ts'
import { agentContract, inputs } from '../../shared/ai.ts'
import { awsAgentParts } from '../../shared/aws/agent-environment.ts'
import { scriptedModel, text } from '../../shared/testing/scripted-model.ts'
import { pipelineClientsOn } from '../support/pipeline-clients.ts'
import { queueHops } from '../support/queue-hops.ts'

const ROUNDS = 10
const silent = { info: () => {}, warn: () => {}, error: () => {} }
const contract = agentContract({
  name: 'bench',
  events: { 'note.added': z.object({ text: z.string() }) },
})

const moto = await startMotoServer()
try {
  const clients = pipelineClientsOn(moto.clientConfig)
  const resources = await createLocalResources(clients, { prefix: 'a2-bench-first' })
  const aws = awsAgentParts({ environment: resources.environment, clients })
  // When the model is called, by the session its message names.
  const called = new Map<string, number>()
  const model = scriptedModel((options) => {
    const user = options.prompt.findLast((message) => message.role === 'user')
    const said =
      user?.role === 'user'
        ? user.content.map((part) => ('text' in part ? part.text : '')).join('')
        : ''
    const sessionId = said.split(' ')[0] ?? ''
    if (!called.has(sessionId)) called.set(sessionId, performance.now())
    return text('ok')
  }).model
  const served = agent({
    name: 'bench',
    model,
    contract,
    store: aws.store,
    dispatcher: aws.dispatcher,
    scheduler: aws.scheduler,
    logger: silent,
  })
  const hops = queueHops()
  const pipeline = await startLocalPipeline({
    agentModule: { default: served },
    environment: resources.environment,
    queues: resources.queues,
    clients,
    logger: silent,
    auth: { type: 'none' },
    onInvoke: hops.onInvoke,
  })

  let serial = 0
  const message = (sessionId: string) =>
    inputs.message({
      id: `m-${sessionId}-${++serial}`,
      role: 'user',
      parts: [{ type: 'text', text: `${sessionId} hi` }],
    })
  async function post(sessionId: string, events: unknown[]): Promise<void> {
    const response = await fetch(`${pipeline.url}?sessionId=${sessionId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ events }),
    })
    if (response.status !== 200) throw new Error(`POST answered ${response.status}`)
  }
  async function settled(sessionId: string): Promise<void> {
    const deadline = Date.now() + 30_000
    for (;;) {
      const { state } = await served.session(sessionId).state()
      if (state.active === null && state.messages.length % 2 === 0 && state.messages.length > 0)
        return
      if (Date.now() > deadline) throw new Error(`${sessionId} did not settle`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  /** One warm turn: POST to the model's call, and the queue hops between. */
  async function firstCall(
    sessionId: string,
    extra: unknown[],
  ): Promise<{ ms: number; path: string[] }> {
    // Warm: a turn before, and its last wake-ups gone by.
    await post(sessionId, message(sessionId))
    await settled(sessionId)
    await new Promise((resolve) => setTimeout(resolve, 300))
    called.delete(sessionId)
    const from = hops.mark()
    const started = performance.now()
    await post(sessionId, [...message(sessionId), ...extra])
    const deadline = Date.now() + 30_000
    while (!called.has(sessionId)) {
      if (Date.now() > deadline) throw new Error(`the model was not called for ${sessionId}`)
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
    const at = called.get(sessionId) as number
    const path = hops.since(from, sessionId, at)
    await settled(sessionId)
    return { ms: at - started, path }
  }

  const decided: number[] = []
  const baseline: number[] = []
  let decidedPath: string[] = []
  let baselinePath: string[] = []
  for (let round = 0; round < ROUNDS + 1; round++) {
    const d = await firstCall(`decided-${round}`, [])
    const b = await firstCall(`admitted-${round}`, [
      { id: `note-${round}`, type: 'note.added', payload: { text: 'beside the message' } },
    ])
    if (round === 0) continue // warm-up
    decided.push(d.ms)
    baseline.push(b.ms)
    decidedPath = d.path
    baselinePath = b.path
  }
  await pipeline.stop()
  const median = (values: number[]): number =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN
  const decidedMedian = median(decided)
  const baselineMedian = median(baseline)
  console.log(
    `POST to the model's call on the local runner (moto, queues polled every 50 ms, ${ROUNDS} interleaved warm rounds)`,
  )
  console.log(
    `  a plain message (decided in the POST)        ${decidedPath.join(' → ') || '(none)'}: ${decidedPath.length} queue hop(s), median ${decidedMedian.toFixed(0)} ms`,
  )
  console.log(
    `  baseline: the POST leaves it to admission    ${baselinePath.join(' → ') || '(none)'}: ${baselinePath.length} queue hop(s), median ${baselineMedian.toFixed(0)} ms`,
  )
  console.log(
    `  ratio                                        the plain message takes ${(decidedMedian / baselineMedian).toFixed(2)}x the baseline's time`,
  )
  console.log(
    `BENCH_RESULT ${JSON.stringify({
      bench: 'first-model-call',
      decidedHops: decidedPath.length,
      baselineHops: baselinePath.length,
      decidedMedianMs: decidedMedian,
      baselineMedianMs: baselineMedian,
      ratio: decidedMedian / baselineMedian,
    })}`,
  )
} finally {
  moto.stop()
}
