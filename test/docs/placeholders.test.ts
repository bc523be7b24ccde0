import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { documentedPages } from '../support/code-blocks.ts'
import { repoRoot } from '../support/repo-root.ts'

// The repository has no public URL yet: a page that asks for one
// (`git clone <repository URL>`) gives the reader a line that cannot work.
// The pages say where a clone comes from in words, and install from it by
// path (`../a2-aws/a2-aws-0.1.0.tgz`, `git+file://`).
describe('the docs ask for no URL a reader has to make up', () => {
  it('README.md and docs/ have no <... URL> placeholder', () => {
    const found = documentedPages().flatMap((doc) =>
      [...readFileSync(join(repoRoot, doc), 'utf8').matchAll(/<[^<>\n]*\bURL\b[^<>\n]*>/g)].map(
        (match) => `${doc}: ${match[0]}`,
      ),
    )
    expect(found).toEqual([])
  })
})
