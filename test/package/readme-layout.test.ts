import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

import { repoRoot as root } from '../support/repo-root.ts'

/** The README's layout table: each row's folder and what it says. */
function layoutRows(): Map<string, string> {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('## Layout'))
  const rows = new Map<string, string>()
  for (const match of section.matchAll(/^\| `([^`]+)` +\|(.*)\|$/gm)) {
    rows.set(match[1] as string, match[2] as string)
  }
  return rows
}

function folders(top: string, depth: number): string[] {
  const found: string[] = []
  const walk = (folder: string, level: number): void => {
    found.push(`${folder}/`)
    if (level === depth) return
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
      if (entry.isDirectory() && !['node_modules', 'dist'].includes(entry.name)) {
        walk(`${folder}/${entry.name}`, level + 1)
      }
    }
  }
  walk(top, 1)
  return found
}

describe("the README's layout table", () => {
  it('names every folder of the library, the entry points, the infrastructure and the tests', () => {
    const rows = layoutRows()
    const covered = (folder: string): boolean => {
      if (rows.has(folder)) return true
      // Or its parent's row names it (`dynamodb/` in the `shared/stores/` row).
      const parent = folder.replace(/[^/]+\/$/, '')
      const name = folder.slice(parent.length)
      return rows.get(parent)?.includes(`\`${name}\``) ?? false
    }
    const all = [
      ...folders('shared', 3),
      ...folders('functions', 3),
      ...folders('infra', 2),
      ...folders('test', 2),
    ]
    expect(all.length).toBeGreaterThan(30)
    expect(all.filter((folder) => !covered(folder))).toEqual([])
  })
})
