import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** A fenced ```ts or ```tsx block of a Markdown page. */
export interface CodeBlock {
  /** The page, relative to the repo root (`docs/deploy.md`). */
  doc: string
  /** The line of the opening fence, 1-based. */
  line: number
  lang: 'ts' | 'tsx'
  /** `ts partial`: a fragment, checked for syntax only. */
  partial: boolean
  /** `ts file=src/agent.ts`: where the block lives, so other blocks may import it. */
  file: string | undefined
  code: string
}

import { repoRoot as root } from './repo-root.ts'

/** README.md and every page in docs/. */
export function documentedPages(): string[] {
  return [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((name) => `docs/${name}`),
  ]
}

/** The ts/tsx blocks of a page, in order. */
export function codeBlocks(doc: string): CodeBlock[] {
  const lines = readFileSync(join(root, doc), 'utf8').split('\n')
  const blocks: CodeBlock[] = []
  for (let at = 0; at < lines.length; at++) {
    const fence = /^```(ts|tsx)((?:\s+\S+)*)\s*$/.exec(lines[at] as string)
    if (!fence) continue
    const words = (fence[2] ?? '').trim().split(/\s+/).filter(Boolean)
    const end = lines.findIndex((line, n) => n > at && line.startsWith('```'))
    if (end === -1) throw new Error(`${doc}:${at + 1}: the block never closes`)
    const unknown = words.filter((word) => word !== 'partial' && !word.startsWith('file='))
    if (unknown.length > 0) throw new Error(`${doc}:${at + 1}: unknown fence words ${unknown}`)
    blocks.push({
      doc,
      line: at + 1,
      lang: fence[1] as 'ts' | 'tsx',
      partial: words.includes('partial'),
      file: words.find((word) => word.startsWith('file='))?.slice('file='.length),
      code: lines.slice(at + 1, end).join('\n'),
    })
    at = end
  }
  return blocks
}

/** A block's own path: its `file=`, or `block-<line>.ts(x)`. */
export function blockPath(block: CodeBlock): string {
  return block.file ?? `block-${block.line}.${block.lang}`
}
