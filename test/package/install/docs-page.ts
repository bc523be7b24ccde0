import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { repoRoot } from '../../support/repo-root.ts'

/** The page `npm run test:package` follows. */
export const PAGE = 'docs/use-in-your-project.md'

/** One thing the page asks of its reader, where it asks it. */
export type PageStep =
  | { kind: 'file'; line: number; path: string; content: string }
  | { kind: 'command'; line: number; command: string }

/**
 * What a reader of the page does, in the page's order: write each fenced
 * block marked `file=<path>` (any language: ts, tsx, json, html) and run
 * each line of each ```bash block. The lines are the page's, unchanged.
 */
export function pageSteps(doc = PAGE): PageStep[] {
  const lines = readFileSync(join(repoRoot, doc), 'utf8').split('\n')
  const steps: PageStep[] = []
  for (let at = 0; at < lines.length; at++) {
    const fence = /^```(\w*)(.*)$/.exec(lines[at] as string)
    if (!fence) continue
    const end = lines.findIndex((line, n) => n > at && line.startsWith('```'))
    if (end === -1) throw new Error(`${doc}:${at + 1}: the block never closes`)
    const body = lines.slice(at + 1, end)
    const file = /\bfile=(\S+)/.exec(fence[2] as string)?.[1]
    if (file) {
      steps.push({ kind: 'file', line: at + 1, path: file, content: `${body.join('\n')}\n` })
    } else if (fence[1] === 'bash') {
      body.forEach((command, n) => {
        // One line, one command: a continued line would be run in halves.
        if (command.trimEnd().endsWith('\\')) {
          throw new Error(`${doc}:${at + 2 + n}: a continued line; the test runs lines one by one`)
        }
        if (command.trim()) steps.push({ kind: 'command', line: at + 2 + n, command })
      })
    }
    at = end
  }
  return steps
}
