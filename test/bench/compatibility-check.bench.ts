/**
 * `a2-aws check` at the speed a CI step needs (issue 38, part 5): 10,000
 * exported sessions, each a real agent's recording (three turns, a tool
 * call, answers streamed in chunks), one file each as `a2-aws export`
 * writes them, a tenth of them cut after a tool call that has yet to run.
 * The CLI runs as a CI step would (its own process, from loading the agent
 * module to the report), twice: against the unchanged agent (exit 0) and
 * against one without the tool (exit 1, a tenth reported). Budget: under a
 * minute each on 2 cores; the bench fails over it.
 *
 *   npm run bench -- compatibility-check
 */
import { spawnSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { calledNotRun, exportCopy, recordedExport } from '../support/recorded-export.ts'
import { repoRoot } from '../support/repo-root.ts'

const SESSIONS = 10_000
const BUDGET_MS = 60_000

const template = await recordedExport()
const dir = await mkdtemp(join(tmpdir(), 'a2-check-bench-'))
try {
  let bytes = 0
  for (let n = 0; n < SESSIONS; n++) {
    const copy = exportCopy(template, 'template', `s${n}`)
    const jsonl = n % 10 === 0 ? calledNotRun(copy) : copy
    bytes += jsonl.length
    await writeFile(join(dir, `s${n}.jsonl`), jsonl)
  }
  console.log(
    `${SESSIONS.toLocaleString('en-US')} exports of ${template.trimEnd().split('\n').length - 1} events (a tenth cut after a tool call), ${(bytes / 1024 / 1024).toFixed(1)} MiB`,
  )
  let over = false
  for (const [name, expected] of [
    ['current', 0],
    ['withoutLookup', 1],
  ] as const) {
    const started = performance.now()
    const run = spawnSync(
      process.execPath,
      ['functions/cli/cli.ts', 'check', '--agent', `test/support/check-agents.ts#${name}`, dir],
      { cwd: repoRoot, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    )
    const ms = performance.now() - started
    const summary = run.stdout.trimEnd().split('\n').at(-1)
    console.log(
      `check --agent #${name}: ${(ms / 1000).toFixed(1)} s (${Math.round(SESSIONS / (ms / 1000)).toLocaleString('en-US')} sessions/s), exit ${run.status}: ${summary}`,
    )
    if (run.status !== expected) {
      console.error(`expected exit ${expected}\n${run.stderr}`)
      process.exitCode = 1
    }
    if (ms > BUDGET_MS) over = true
  }
  if (over) {
    console.error(`over the budget of ${BUDGET_MS / 1000} s`)
    process.exitCode = 1
  }
} finally {
  await rm(dir, { recursive: true, force: true })
}
