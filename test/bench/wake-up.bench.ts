/**
 * Wake-up latency on the local pipeline runner (issue 5): from an append
 * returning to the lane it wakes starting for it (the model step: the append
 * carries the message's decision, issue 34), through the fast path
 * (the appender sends the wake-up to SQS itself) vs the stream path (only
 * the router, fed by the DynamoDB stream, wakes the lane). One run, on the
 * moto server, interleaved rounds.
 *
 *   npm run bench -- wake-up
 */
import { startLocalPipeline } from '../../functions/local/runner/local-pipeline.ts'
import { startMotoServer } from '../../functions/local/runner/moto-server.ts'
import { createLocalResources } from '../../functions/local/runner/resources.ts'
import { type Agent, agent } from '../../shared/agent/index.ts'
import { inputs } from '../../shared/ai.ts'
import { awsAgentParts } from '../../shared/aws/agent-environment.ts'
import { scriptedModel } from '../../shared/testing/scripted-model.ts'
import { pipelineClientsOn } from '../support/pipeline-clients.ts'

const ROUNDS = 12
const silent = { info: () => {}, warn: () => {}, error: () => {} }
const moto = await startMotoServer()
try {
  const clients = pipelineClientsOn(moto.clientConfig)
  const resources = await createLocalResources(clients, { prefix: 'a2-bench' })
  const aws = awsAgentParts({ environment: resources.environment, clients })
  // A session's first model-step run, as the runner's lane handler starts it.
  const started = new Map<string, number>()
  // The model is never called: the bench stops where the generation lane starts.
  const model = scriptedModel([]).model
  const served: Agent = agent({
    name: 'bench',
    model,
    store: aws.store,
    dispatcher: aws.dispatcher,
    scheduler: aws.scheduler,
    logger: silent,
  })
  const instrumented = {
    ...served,
    runtime: {
      ...served.runtime,
      run: async (wakeUp: Parameters<Agent['runtime']['run']>[0]) => {
        if (wakeUp.lane === 'generation' && !started.has(wakeUp.sessionId))
          started.set(wakeUp.sessionId, performance.now())
      },
    },
  }
  const pipeline = await startLocalPipeline({
    agentModule: { default: instrumented },
    environment: resources.environment,
    queues: resources.queues,
    clients,
    logger: silent,
    // The benchmark counts the pipeline's requests, not the token check's.
    auth: { type: 'none' },
  })
  const fastPath = agent({
    name: 'bench',
    model,
    store: aws.store,
    dispatcher: aws.dispatcher,
    logger: silent,
  })
  const streamOnly = agent({
    name: 'bench',
    model,
    store: aws.store,
    dispatcher: { wake: async () => {} },
    logger: silent,
  })

  async function latency(appender: Agent, sessionId: string): Promise<number> {
    await appender.session(sessionId).append(
      ...inputs.message({
        id: `m-${sessionId}`,
        role: 'user',
        parts: [{ type: 'text', text: 'hi' }],
      }),
    )
    const appended = performance.now()
    const deadline = Date.now() + 30_000
    while (!started.has(sessionId)) {
      if (Date.now() > deadline) throw new Error(`no wake-up for ${sessionId}`)
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
    return (started.get(sessionId) as number) - appended
  }

  const fast: number[] = []
  const stream: number[] = []
  for (let round = 0; round < ROUNDS + 1; round++) {
    const f = await latency(fastPath, `fast-${round}`)
    const s = await latency(streamOnly, `stream-${round}`)
    if (round === 0) continue // warm-up
    fast.push(f)
    stream.push(s)
  }
  await pipeline.stop()
  const median = (values: number[]): number =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN
  const fastMedian = median(fast)
  const streamMedian = median(stream)
  console.log(
    `Wake-up latency on the local runner (moto, polls every 50 ms, ${ROUNDS} interleaved rounds)`,
  )
  console.log(`  fast path (appender sends to SQS)   median ${fastMedian.toFixed(0)} ms`)
  console.log(`  stream path (router only)           median ${streamMedian.toFixed(0)} ms`)
  console.log(
    `  ratio                               the fast path takes ${(fastMedian / streamMedian).toFixed(2)}x the stream path's time`,
  )
  console.log(
    `BENCH_RESULT ${JSON.stringify({ bench: 'wake-up', fastMedian, streamMedian, ratio: fastMedian / streamMedian })}`,
  )
} finally {
  moto.stop()
}
