import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export interface DigestRun {
  /** Seeds `from`..`from + count - 1` (with `seed`, that one alone). */
  from?: number
  count?: number
  seed?: number
  /** Worker threads the process runs them on (each thread runs its seeds one after another). */
  workers?: number
  /** Node's own options for the process (a V8 flag that moves its garbage collections, say). */
  nodeOptions?: readonly string[]
}

const RUN = fileURLToPath(new URL('./run.ts', import.meta.url))

/**
 * Runs seeds in a process of their own (`npm run simulate -- --digests`)
 * and reads what it wrote: each seed's digest, steps and events, by seed. A
 * seed that breaks an invariant still has its line (the process exits 1
 * then): a replay compares runs, it does not judge them.
 */
export async function digestsInProcess(run: DigestRun): Promise<Map<number, string>> {
  const dir = mkdtempSync(join(tmpdir(), 'a2-replay-'))
  const file = join(dir, 'digests')
  const seeds =
    run.seed === undefined
      ? [
          '--seeds',
          String(run.count ?? 1),
          '--from',
          String(run.from ?? 1),
          '--workers',
          String(run.workers ?? 1),
        ]
      : ['--seed', String(run.seed)]
  try {
    await new Promise<void>((resolve, reject) => {
      execFile(
        process.execPath,
        [...(run.nodeOptions ?? []), RUN, ...seeds, '--no-shrink', '--digests', file],
        { maxBuffer: 64 * 1024 * 1024 },
        (error, _stdout, stderr) => {
          // Exit 1 is a seed that broke an invariant; its digest is written all the same.
          if (error && error.code !== 1) reject(new Error(`${RUN} ${seeds.join(' ')}: ${stderr}`))
          else resolve()
        },
      )
    })
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean)
    return new Map(lines.map((line) => [Number(line.split(' ')[0]), line]))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The seeds whose lines differ (or that one run lacks), in order, with both lines. */
export function mismatches(
  a: ReadonlyMap<number, string>,
  b: ReadonlyMap<number, string>,
): { seed: number; a: string | undefined; b: string | undefined }[] {
  const seeds = [...new Set([...a.keys(), ...b.keys()])].sort((x, y) => x - y)
  return seeds
    .filter((seed) => a.get(seed) !== b.get(seed))
    .map((seed) => ({ seed, a: a.get(seed), b: b.get(seed) }))
}
