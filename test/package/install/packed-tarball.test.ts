import { describe, expect, inject, it } from 'vitest'
import packageJson from '../../../package.json' with { type: 'json' }

// What `npm pack` put in the tarball (pack-global-setup.ts packs it once for
// the package project): what a user's `npm install` unpacks.
describe('the packed package', () => {
  it('holds dist/ (each entry point built, with its types), README and docs, and no sources or tests', () => {
    const { files } = inject('packed')
    for (const [entry, target] of Object.entries(packageJson.exports)) {
      if (typeof target === 'string') continue
      expect(files, entry).toContain(target.default.slice(2))
      expect(files, entry).toContain(target.types.slice(2))
    }
    expect(files).toContain('dist/functions/lambda.js')
    expect(files).toContain('dist/functions/cli/cli.js')
    expect(files).toContain('README.md')
    expect(files).toContain('docs/use-in-your-project.md')
    expect(files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([])
    expect(files.filter((file) => file.includes('test/') || file.includes('local-runner'))).toEqual(
      [],
    )
  })
})
