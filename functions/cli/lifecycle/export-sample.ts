import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { EventStore } from '../../../shared/log/event-store.ts'
import { exportSession } from '../../../shared/log/session-export.ts'
import { awsSetupProblem } from '../aws-setup.ts'

export interface SampleExport {
  /** How many sessions, at most. */
  sample: number
  /** The directory the files go to, one `<sessionId>.jsonl` each. */
  out: string
  snapshots: readonly string[]
}

/**
 * `a2-aws export --table <name> --sample <n> --out <dir>`: up to n of the
 * table's sessions, one export file each, for `a2-aws check` in a CI step.
 * Answers the exit code: 0, or 2 when the AWS setup is missing.
 */
export async function exportSample(
  { sample, out, snapshots }: SampleExport,
  from: { store: EventStore; sessionIds: (limit: number) => Promise<string[]> },
  io: { stdout: (text: string) => void; stderr: (line: string) => void },
): Promise<number> {
  try {
    const ids = await from.sessionIds(sample)
    await mkdir(out, { recursive: true })
    for (const sessionId of ids) {
      const jsonl = await exportSession(from.store, sessionId, { snapshots })
      // A session ID may hold characters a file name may not.
      await writeFile(join(out, `${encodeURIComponent(sessionId)}.jsonl`), jsonl)
    }
    io.stdout(`exported ${ids.length} sessions to ${out}\n`)
    return 0
  } catch (error) {
    const setup = awsSetupProblem(error)
    if (!setup) throw error
    io.stderr(`a2-aws export: ${setup}`)
    return 2
  }
}

/** `--sample`'s value: a positive whole number, or the problem with it. */
export function sampleSize(value: string): number | { problem: string } {
  const size = Number(value)
  return Number.isSafeInteger(size) && size > 0
    ? size
    : { problem: `--sample takes a number of sessions, not ${JSON.stringify(value)}` }
}
