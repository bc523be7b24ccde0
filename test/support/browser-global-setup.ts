import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'vite'
import type {} from 'vitest'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The example chat page, built for this run. */
    webRoot: string
  }
}

/** Builds the example chat page once for the browser project, into a temporary directory. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const outDir = await mkdtemp(join(tmpdir(), 'a2-web-'))
  await build({
    configFile: fileURLToPath(
      new URL('../../functions/example/web/vite.config.ts', import.meta.url),
    ),
    build: { outDir, emptyOutDir: true },
    logLevel: 'error',
  })
  project.provide('webRoot', outDir)
  return () => rm(outDir, { recursive: true, force: true })
}
