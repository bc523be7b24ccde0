/**
 * Puts a fixed runtime bug back, in a copy of shared/ (never in the
 * product), and runs the simulator on the copy from a seed until a seed
 * breaks an invariant: what the simulator would have found.
 *
 *   npm run simulate:put-back -- store-global-metadata-id
 *   npm run simulate:put-back -- unstorable-output-reruns --seeds 200 --from 1
 *   npm run simulate:put-back -- all
 *   npm run simulate:put-back -- all --seeds 100 --every   # how many of the seeds find it
 *
 * Exits non-zero when a bug was not found within the seeds. The bugs and
 * what put them back are `PUT_BACK` (put-back-bugs.ts).
 */
import { parseArgs } from 'node:util'
import { findPutBackBug, PUT_BACK } from './put-back-bugs.ts'

const { values, positionals } = parseArgs({
  options: {
    seeds: { type: 'string', default: '200' },
    from: { type: 'string', default: '1' },
    every: { type: 'boolean', default: false },
  },
  allowPositionals: true,
})
const which = positionals[0] ?? 'all'
const names = which === 'all' ? Object.keys(PUT_BACK) : [which]
let missed = 0
for (const name of names) {
  if (!(name in PUT_BACK)) {
    console.error(`No bug "${name}" to put back; the bugs: ${Object.keys(PUT_BACK).join(', ')}`)
    process.exit(2)
  }
  const started = performance.now()
  const found = await findPutBackBug(name, {
    from: Number(values.from),
    seeds: Number(values.seeds),
    every: values.every,
  })
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  if (found) {
    console.log(
      `${name}: found by seed ${found.seed} (${found.tried} seeds tried, ${seconds} s${values.every ? `; ${found.failing.length} failing: ${found.failing.join(' ')}` : ''}): ${found.broken.slice(0, 3).join('; ')}`,
    )
  } else {
    missed++
    console.log(`${name}: NOT found in ${values.seeds} seeds from ${values.from} (${seconds} s)`)
  }
}
if (missed > 0) process.exitCode = 1
