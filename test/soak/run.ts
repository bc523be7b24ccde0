/**
 * The soak: many concurrent sessions on one store through the AI Gateway
 * double, on the configuration users run, each checked once it is over.
 *
 *   npm run soak -- --sessions 200 --turns 3 --seed 7
 *   npm run soak -- --pipeline --sessions 50 --kills   # the local pipeline on moto, containers killed at random
 *   npm run soak -- --pipeline --sessions 50 --concurrency 50   # every session at once (slow on moto)
 *
 * Without --seed it picks one and prints it; a failure prints the command
 * that reruns it. Exits non-zero when any session broke an invariant.
 */
import { parseArgs } from 'node:util'
import { describeReport, runSoak } from './soak.ts'
import { embedded } from './targets.ts'

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '200' },
    turns: { type: 'string', default: '3' },
    seed: { type: 'string' },
    pipeline: { type: 'boolean', default: false },
    kills: { type: 'boolean', default: false },
    concurrency: { type: 'string' },
  },
  allowPositionals: false,
})
const number = (name: string, text: string | undefined): number => {
  const value = Number(text)
  if (!Number.isInteger(value) || value <= 0) {
    console.error(
      `npm run soak: --${name} must be a positive whole number, not ${JSON.stringify(text)}`,
    )
    process.exit(2)
  }
  return value
}
const seed =
  values.seed === undefined ? Math.floor(Math.random() * 1_000_000) : number('seed', values.seed)
const sessions = number('sessions', values.sessions)
const turns = number('turns', values.turns)
// moto serves one request at a time: fifty sessions at once there make each
// turn wait minutes for the emulator, so the pipeline runs ten at a time.
const concurrency = number(
  'concurrency',
  values.concurrency ?? String(values.pipeline ? Math.min(10, sessions) : sessions),
)

const target = values.pipeline
  ? (await import('./pipeline-target.ts')).onLocalPipeline({
      seed,
      ...(values.kills ? { killEveryMs: 1_000 } : {}),
      ...(process.env.A2_AWS_ENDPOINT ? { endpoint: process.env.A2_AWS_ENDPOINT } : {}),
    })
  : embedded
console.log(
  `soak seed ${seed}: ${sessions} sessions x ${turns} turns${values.pipeline ? ' on the local pipeline' : ''}${values.kills ? ', containers killed at random' : ''}`,
)
const started = Date.now()
let lastLine = 0
const report = await runSoak({
  sessions,
  turns,
  seed,
  target,
  concurrency,
  // A line every 15 s at most, and one when the last session is done.
  onSessionDone: (done, of) => {
    if (done < of && Date.now() - lastLine < 15_000) return
    lastLine = Date.now()
    console.log(`  ${done} of ${of} sessions done (${Math.round((Date.now() - started) / 1000)} s)`)
  },
  ...(values.pipeline ? { pollMs: 2_000, turnTimeoutMs: 300_000 } : {}),
})
console.log(describeReport(report))
process.exit(report.failures.length === 0 ? 0 : 1)
