/**
 * The simulator (shared/testing/simulator): the whole runtime in a seeded,
 * simulated world of several processes, queues, timers and faults, its
 * invariants checked once each run is quiet.
 *
 *   npm run simulate -- --seed 42                 # one seed; a failure prints its shrunk trace
 *   npm run simulate -- --seed 42 --trace         # and the whole trace, pass or fail
 *   npm run simulate -- --seeds 10000             # seeds 1..10000 on two worker threads
 *   npm run simulate -- --seeds 500 --from 9000 --workers 2
 *   npm run simulate -- --seed 42 --only 1 --turns 2 --faults store.throttled,process.killed
 *   npm run simulate -- --store dynamodb --seeds 5  # on the DynamoDB store over moto (sampled: slow)
 *   npm run simulate -- --day --seeds 20            # a day of one pool: 8-12 sessions over 3 hours
 *   npm run simulate -- --deploys --seeds 1000      # a deploy mid-run: sim-v1's processes drain, sim-v2's start
 *   npm run simulate -- --seeds 1000 --digests /tmp/d  # and each seed's `seed digest steps events`
 *
 * Exits non-zero when any seed broke an invariant.
 */
import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'
import { traceLine } from '../../shared/testing/simulator/describe.ts'
import {
  describeFailure,
  replayCommand,
  type SimulationOptions,
  type SimulationReport,
  shrink,
  simulate,
} from '../../shared/testing/simulator/index.ts'
import { parseFaults } from '../../shared/testing/simulator/shrink.ts'

interface SeedResult {
  seed: number
  failed: boolean
  summary: string
  faults: Record<string, number>
  steps: number
  kills: number
  compactions: number
  modelCalls: number
  latestWakeUpMs: number
  digest: number
  events: number
}

/** A seed's line in a `--digests` file: what two replays of it must agree on. */
const digestLine = (seed: number, digest: number, steps: number, events: number): string =>
  `${seed} ${digest} ${steps} ${events}`

if (!isMainThread) {
  const { seeds, base } = workerData as { seeds: number[]; base: Omit<SimulationOptions, 'seed'> }
  for (const seed of seeds) {
    const report = await simulate({ ...base, seed })
    const result: SeedResult = {
      seed,
      failed: report.failures.length > 0,
      summary: report.failures.map((f) => `${f.sessionId}: ${f.broken.join('; ')}`).join(' | '),
      faults: report.figures.faults,
      steps: report.figures.steps,
      kills: report.figures.kills,
      compactions: report.figures.compactions,
      modelCalls: report.figures.modelCalls,
      latestWakeUpMs: report.figures.latestWakeUpMs,
      digest: report.digest,
      events: report.figures.events,
    }
    parentPort?.postMessage(result)
  }
} else {
  await main()
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string' },
      seeds: { type: 'string' },
      from: { type: 'string', default: '1' },
      workers: { type: 'string', default: '2' },
      only: { type: 'string' },
      turns: { type: 'string' },
      faults: { type: 'string' },
      trace: { type: 'boolean', default: false },
      day: { type: 'boolean', default: false },
      deploys: { type: 'boolean', default: false },
      store: { type: 'string', default: 'memory' },
      'no-shrink': { type: 'boolean', default: false },
      digests: { type: 'string' },
    },
    allowPositionals: false,
  })
  const number = (name: string, text: string | undefined): number => {
    const value = Number(text)
    if (!Number.isInteger(value) || value < 0) {
      console.error(
        `npm run simulate: --${name} must be a whole number, not ${JSON.stringify(text)}`,
      )
      process.exit(2)
    }
    return value
  }
  const base: Omit<SimulationOptions, 'seed'> = {
    ...(values.only ? { only: values.only.split(',').map((n) => number('only', n)) } : {}),
    ...(values.turns ? { turns: number('turns', values.turns) } : {}),
    ...(values.faults ? { faults: parseFaults(values.faults) } : {}),
    ...(values.day ? { day: true } : {}),
    ...(values.deploys ? { deploys: true } : {}),
  }
  if (values.store === 'dynamodb') {
    await onDynamoDB(
      base,
      values.seed === undefined ? number('from', values.from) : number('seed', values.seed),
      values.seeds === undefined ? 1 : number('seeds', values.seeds),
    )
    return
  }
  if (values.store !== 'memory') {
    console.error(
      `npm run simulate: --store is memory or dynamodb, not ${JSON.stringify(values.store)}`,
    )
    process.exit(2)
  }
  if (values.seeds === undefined) {
    const seed =
      values.seed === undefined
        ? Math.floor(Math.random() * 1_000_000)
        : number('seed', values.seed)
    const report = await simulate({ ...base, seed })
    if (values.digests)
      writeFileSync(
        values.digests,
        `${digestLine(seed, report.digest, report.figures.steps, report.figures.events)}\n`,
      )
    if (values.trace)
      for (const line of report.trace) console.log(traceLine(line, Date.UTC(2026, 0, 1)))
    if (report.failures.length === 0) {
      console.log(
        `seed ${seed}: every invariant held (${summaryOf(report)}); replay: ${replayCommand(report)}`,
      )
      return
    }
    await reportFailure(report, !values['no-shrink'])
    process.exitCode = 1
    return
  }
  const count = number('seeds', values.seeds)
  const from = number('from', values.from)
  const workers = Math.max(1, number('workers', values.workers))
  const seeds = Array.from({ length: count }, (_, n) => from + n)
  const started = performance.now()
  const failed: SeedResult[] = []
  const results: SeedResult[] = []
  const faults: Record<string, number> = {}
  let done = 0
  let steps = 0
  let kills = 0
  let compactions = 0
  let modelCalls = 0
  let latestWakeUp = { ms: 0, seed: 0 }
  await Promise.all(
    Array.from({ length: Math.min(workers, count) }, (_, w) => {
      const mine = seeds.filter((_, n) => n % workers === w)
      return new Promise<void>((resolve, reject) => {
        const worker = new Worker(new URL(import.meta.url), { workerData: { seeds: mine, base } })
        worker.on('message', (result: SeedResult) => {
          done++
          results.push(result)
          steps += result.steps
          kills += result.kills
          compactions += result.compactions
          modelCalls += result.modelCalls
          if (result.latestWakeUpMs > latestWakeUp.ms)
            latestWakeUp = { ms: result.latestWakeUpMs, seed: result.seed }
          for (const [kind, n] of Object.entries(result.faults))
            faults[kind] = (faults[kind] ?? 0) + n
          if (result.failed) {
            failed.push(result)
            console.log(`seed ${result.seed} FAILED: ${result.summary.slice(0, 300)}`)
          }
          if (done % 500 === 0 || done === count) {
            const minutes = (performance.now() - started) / 60_000
            console.log(
              `${done}/${count} seeds, ${failed.length} failing, ${Math.round(done / minutes)} seeds/min`,
            )
          }
        })
        worker.on('error', reject)
        worker.on('exit', () => resolve())
      })
    }),
  )
  const seconds = (performance.now() - started) / 1000
  if (values.digests) {
    const lines = results
      .sort((a, b) => a.seed - b.seed)
      .map((result) => `${digestLine(result.seed, result.digest, result.steps, result.events)}\n`)
    writeFileSync(values.digests, lines.join(''))
  }
  console.log(
    `${count} seeds (${from}..${from + count - 1}) in ${seconds.toFixed(1)} s on ${workers} workers: ${Math.round((count / seconds) * 60)} seeds/min, ${steps} steps, ${modelCalls} model calls, ${kills} processes killed, ${compactions} compactions, the latest wake-up ${latestWakeUp.ms} ms after its commit (seed ${latestWakeUp.seed}); ${failed.length} failing`,
  )
  console.log(
    `faults injected: ${Object.entries(faults)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([kind, n]) => `${kind} ${n}`)
      .join(', ')}`,
  )
  for (const result of failed.sort((a, b) => a.seed - b.seed).slice(0, 3)) {
    await reportFailure(await simulate({ ...base, seed: result.seed }), !values['no-shrink'])
  }
  if (failed.length > 0) {
    console.log(`failing seeds: ${failed.map((result) => result.seed).join(' ')}`)
    process.exitCode = 1
  }
}

/** Seeds on the DynamoDB store over moto, one at a time (moto serves one request at a time). */
async function onDynamoDB(
  base: Omit<SimulationOptions, 'seed'>,
  from: number,
  count: number,
): Promise<void> {
  const { dynamodbOnMoto } = await import('./dynamodb-store.ts')
  const dynamodb = await dynamodbOnMoto()
  const started = performance.now()
  const failed: number[] = []
  try {
    for (let seed = from; seed < from + count; seed++) {
      const report = await simulate({ ...base, seed, store: dynamodb.store })
      const faults = Object.entries(report.figures.faults)
        .map(([kind, n]) => `${kind} ${n}`)
        .join(', ')
      console.log(
        `seed ${seed} on DynamoDB: ${report.failures.length === 0 ? 'every invariant held' : 'FAILED'} (${summaryOf(report)}; faults: ${faults || 'none'})`,
      )
      if (report.failures.length > 0) {
        failed.push(seed)
        console.log(describeFailure(report))
      }
    }
  } finally {
    dynamodb.close()
  }
  const seconds = (performance.now() - started) / 1000
  console.log(
    `${count} seeds on DynamoDB (moto) in ${seconds.toFixed(1)} s; ${failed.length} failing${failed.length ? `: ${failed.join(' ')}` : ''}`,
  )
  if (failed.length > 0) process.exitCode = 1
}

async function reportFailure(report: SimulationReport, shrinking: boolean): Promise<void> {
  const shrunk = shrinking ? await shrink(report) : report
  if (shrunk !== report) console.log(`seed ${report.seed} shrunk to: ${replayCommand(shrunk)}`)
  console.log(describeFailure(shrunk))
}

function summaryOf(report: SimulationReport): string {
  const { figures } = report
  return `${figures.sessions} sessions, ${figures.events} events, ${figures.modelCalls} model calls, ${figures.compactions} compactions, ${figures.processes} processes, ${figures.kills} kills, ${figures.snapshotsWritten} snapshots written and ${figures.snapshotsRead} read, ${figures.steps} steps`
}
