import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { repoRoot } from './repo-root.ts'

/**
 * The ```bash blocks of one section of a page (from its `## <title>` line to
 * the next `## ` heading), in order, as a reader copies them.
 */
export function shellBlocks(doc: string, title: string): string[] {
  const text = readFileSync(join(repoRoot, doc), 'utf8')
  const start = text.indexOf(`\n## ${title}\n`)
  if (start === -1) throw new Error(`${doc}: no section "## ${title}"`)
  const end = text.indexOf('\n## ', start + 1)
  const section = text.slice(start, end === -1 ? undefined : end)
  return [...section.matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((match) => match[1] as string)
}
