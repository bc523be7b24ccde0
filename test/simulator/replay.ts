/**
 * Exact replay, checked: runs seeds twice at once, in two processes of
 * their own (`npm run simulate -- --digests`), and compares each seed's
 * digest, steps and events. The second process runs with V8's `--gc-global`
 * (every collection a full one), so the two collect garbage at other
 * moments: a run that could see the collector (a weak reference, a
 * finalizer) forks there, as one that waits on real time forks under load.
 *
 *   npm run simulate:replay                          # seeds 1..1000
 *   npm run simulate:replay -- --seeds 200 --from 5000 --workers 1
 *
 * Prints the seeds whose runs differ, with both lines, and exits non-zero
 * when any does (`npm run simulate -- --seed N --trace` in two shells, and
 * a diff of the traces, shows where they fork).
 */
import { parseArgs } from 'node:util'
import { digestsInProcess, mismatches } from './replay-digests.ts'

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '1000' },
    from: { type: 'string', default: '1' },
    workers: { type: 'string', default: '2' },
  },
})
const number = (name: string, text: string): number => {
  const value = Number(text)
  if (!Number.isInteger(value) || value < 1) {
    console.error(`npm run simulate:replay: --${name} must be a whole number, not ${text}`)
    process.exit(2)
  }
  return value
}
const run = {
  count: number('seeds', values.seeds),
  from: number('from', values.from),
  workers: number('workers', values.workers),
}
const last = run.from + run.count - 1
const started = performance.now()
const timed = async (digests: Promise<Map<number, string>>) => {
  const lines = await digests
  return { lines, seconds: ((performance.now() - started) / 1000).toFixed(1) }
}
const [first, second] = await Promise.all([
  timed(digestsInProcess(run)),
  timed(digestsInProcess({ ...run, nodeOptions: ['--gc-global'] })),
])
const differ = mismatches(first.lines, second.lines)
for (const { seed, a, b } of differ) {
  console.log(`seed ${seed} differs:\n  ${a ?? '(no line)'}\n  ${b ?? '(no line)'} (--gc-global)`)
}
console.log(
  `seeds ${run.from}..${last}, run twice at once in two processes of ${run.workers} worker thread${run.workers === 1 ? '' : 's'} (${first.seconds} s; with --gc-global, ${second.seconds} s): ${differ.length === 0 ? 'every seed the same digest, steps and events' : `${differ.length} differ: ${differ.map(({ seed }) => seed).join(' ')}`}`,
)
if (differ.length > 0) process.exitCode = 1
