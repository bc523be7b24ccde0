import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { CheckedSession } from '../../../shared/agent/compatibility/checked-session.ts'
import { sessionFromExport } from '../../../shared/agent/compatibility/session-sources.ts'

/** Files read ahead while the check folds, so reading never waits on the disk one file at a time. */
const READ_AHEAD = 32

/** An export file or directory that is not there, or directories with no export in them (exit 2). */
export class MissingExportError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'MissingExportError'
  }
}

/**
 * The export files the paths name: files as given, a directory's .jsonl
 * files (recursively), sorted; none at all is an error.
 */
export async function exportFiles(paths: readonly string[]): Promise<string[]> {
  const files: string[] = []
  for (const path of paths) {
    const info = await stat(path).catch(() => undefined)
    if (info === undefined) throw new MissingExportError(`no such file or directory: ${path}`)
    if (!info.isDirectory()) {
      files.push(path)
      continue
    }
    const entries = await readdir(path, { recursive: true, withFileTypes: true })
    files.push(
      ...entries
        .filter((entry) => entry.isFile() && entry.name.endsWith('.jsonl'))
        .map((entry) => join(entry.parentPath, entry.name))
        .sort(),
    )
  }
  // A step that exported nothing (a wrong directory, an empty sample) checked nothing: not a pass.
  if (files.length === 0) {
    throw new MissingExportError(`no .jsonl export under ${paths.join(', ')}: nothing to check`)
  }
  return files
}

/**
 * The sessions of export files, in order, each parsed as it is checked: a
 * malformed or truncated one throws `InvalidExportError` naming the file
 * and line.
 */
export async function* exportSessions(files: readonly string[]): AsyncIterable<CheckedSession> {
  const reads: Promise<string>[] = []
  for (let next = 0; next < files.length; next++) {
    while (reads.length < READ_AHEAD && next + reads.length < files.length) {
      const read = readFile(files[next + reads.length] as string, 'utf8')
      // Awaited in its turn; until then a failure must not count as unhandled.
      read.catch(() => {})
      reads.push(read)
    }
    const text = await (reads.shift() as Promise<string>)
    yield sessionFromExport(text, files[next] as string)
  }
}
