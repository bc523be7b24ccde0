/**
 * Runs the benchmarks: every `test/bench/*.bench.ts`, one after the other,
 * each in its own Node process so one bench's heap, JIT state and open
 * handles never touch the next one's figures.
 *
 *   npm run bench                  # all of them
 *   npm run bench -- event-log     # only those whose name (less .bench.ts) contains a filter
 *
 * Exits non-zero when any bench fails (or when a filter matches nothing).
 */
import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const benchDir = dirname(fileURLToPath(import.meta.url))
const filters = process.argv.slice(2).filter((arg) => arg !== '--')

const all = readdirSync(benchDir)
  .filter((name) => name.endsWith('.bench.ts'))
  .sort()
// Filters match the name without `.bench.ts` (`ai` must not match every file's `bench`).
const selected = all.filter(
  (name) =>
    filters.length === 0 ||
    filters.some((filter) => basename(name, '.bench.ts').includes(filter) || name === filter),
)

if (selected.length === 0) {
  console.error(
    `No benchmark matches ${filters.map((filter) => JSON.stringify(filter)).join(', ')}. ` +
      `Available: ${all.map((name) => basename(name, '.bench.ts')).join(', ') || '(none)'}`,
  )
  process.exit(1)
}

function runOne(file: string): Promise<{ ok: boolean; detail: string; seconds: number }> {
  const started = performance.now()
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...process.execArgv, join(benchDir, file)], {
      stdio: 'inherit',
    })
    const seconds = (): number => (performance.now() - started) / 1000
    child.once('error', (error) =>
      resolve({ ok: false, detail: error.message, seconds: seconds() }),
    )
    child.once('exit', (code, signal) =>
      resolve({
        ok: code === 0,
        detail: signal ? `killed by ${signal}` : `exit code ${code}`,
        seconds: seconds(),
      }),
    )
  })
}

const failed: string[] = []
for (const file of selected) {
  console.log(`\n=== ${file} ===`)
  const { ok, detail, seconds } = await runOne(file)
  console.log(`=== ${file}: ${ok ? 'ok' : `FAILED (${detail})`} in ${seconds.toFixed(1)} s ===`)
  if (!ok) failed.push(file)
}

if (failed.length > 0) {
  console.error(
    `\n${failed.length} of ${selected.length} benchmark(s) failed: ${failed.join(', ')}`,
  )
  process.exit(1)
}
