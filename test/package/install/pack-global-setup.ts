import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type {} from 'vitest'
import type { TestProject } from 'vitest/node'
import { repoRoot } from '../../support/repo-root.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The package as `npm publish` would pack it, once for every file of the package project. */
    packed: { tarball: string; filename: string; files: string[] }
  }
}

/**
 * `npm pack` of this checkout, as `npm publish` packs it (its `prepack`
 * builds dist/), into a temporary folder: what the page's clone and
 * `npm pack` make.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const folder = await mkdtemp(join(tmpdir(), 'a2-packed-'))
  const { stdout } = await promisify(execFile)(
    'npm',
    ['pack', '--json', '--pack-destination', folder],
    { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 },
  )
  const [report] = JSON.parse(stdout.slice(stdout.indexOf('['))) as {
    filename: string
    files: { path: string }[]
  }[]
  if (!report) throw new Error('npm pack reported nothing')
  project.provide('packed', {
    tarball: join(folder, report.filename),
    filename: report.filename,
    files: report.files.map((file) => file.path),
  })
  return () => rm(folder, { recursive: true, force: true })
}
