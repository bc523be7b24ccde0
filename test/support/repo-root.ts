import { join } from 'node:path'

/** The repository's root folder, for tests that read its files (docs, package.json, sources). */
export const repoRoot = join(import.meta.dirname, '..', '..')
