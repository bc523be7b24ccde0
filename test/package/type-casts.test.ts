import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

import { repoRoot as root } from '../support/repo-root.ts'

const CAST = /\bas (never|unknown as)\b/
/** Issue 16: every cast that overrides the checker is rare and says why. */
const MAX_CASTS = 13
/** How far above a cast its reason may start. */
const REASON_WITHIN_LINES = 6

function sources(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
}

function casts(): { at: string; reasoned: boolean }[] {
  const found: { at: string; reasoned: boolean }[] = []
  for (const file of [...sources('shared'), ...sources('infra')]) {
    const lines = readFileSync(file, 'utf8').split('\n')
    lines.forEach((line, index) => {
      const code = line.replace(/\/\/.*$/, '')
      if (!CAST.test(code) || /^\s*\*/.test(line)) return
      const above = lines.slice(Math.max(0, index - REASON_WITHIN_LINES), index + 1)
      found.push({
        at: `${relative(root, file)}:${index + 1}`,
        reasoned: above.some((text) => /\/\/|\/\*\*|^\s*\*/.test(text)),
      })
    })
  }
  return found
}

describe('casts in the library and the stack', () => {
  it(`stay at most ${MAX_CASTS}, each with a comment that says why`, () => {
    const all = casts()
    expect(all.length).toBeGreaterThan(0)
    expect(all.length, all.map((cast) => cast.at).join('\n')).toBeLessThanOrEqual(MAX_CASTS)
    expect(all.filter((cast) => !cast.reasoned).map((cast) => cast.at)).toEqual([])
  })
})
