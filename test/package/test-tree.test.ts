import { existsSync, readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { repoRoot } from '../support/repo-root.ts'

/** Every folder below `top`, relative to the repository root. */
function foldersBelow(top: string): string[] {
  const found: string[] = []
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue
      const path = join(folder, entry.name)
      found.push(relative(repoRoot, path))
      walk(path)
    }
  }
  walk(join(repoRoot, top))
  return found
}

describe('the test tree', () => {
  it('mirrors the source tree: every folder under test/shared, test/functions and test/infra is a source folder', () => {
    const mirrored = ['shared', 'functions', 'infra'].flatMap((top) => [
      `test/${top}`,
      ...foldersBelow(`test/${top}`),
    ])
    expect(mirrored.length).toBeGreaterThan(20)
    const orphans = mirrored.filter(
      (folder) => !existsSync(join(repoRoot, folder.slice('test/'.length))),
    )
    expect(orphans).toEqual([])
  })

  it('has one support folder: no other folder under test/ is named support', () => {
    const supports = foldersBelow('test').filter((folder) => folder.endsWith('/support'))
    expect(supports).toEqual(['test/support'])
  })
})
