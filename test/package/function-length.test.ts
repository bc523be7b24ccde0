import { execFile } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { repoRoot } from '../support/repo-root.ts'

// `biome check .` passes on the real tree; this tree breaks the function
// length rule (biome.jsonc: 150 lines, blank lines skipped) on purpose, and
// the repository's configuration must refuse it. The files are written to a
// scratch folder laid out like the repository (the exceptions match paths),
// with a copy of biome.jsonc, and linted there.

const biome = join(repoRoot, 'node_modules/@biomejs/biome/bin/biome')
const scratch: string[] = []
afterAll(() => {
  for (const folder of scratch) rmSync(folder, { recursive: true, force: true })
})

/** A function body of `code` lines of code, and `blank` blank lines among them. */
function bodyOf(code: number, blank = 0): string {
  const lines = ['  let total = 0']
  for (let line = 1; line < code - 1; line++) lines.push(`  total += ${line}`)
  lines.push(...Array.from({ length: blank }, () => ''), '  expect(total).toBeGreaterThan(0)')
  return lines.join('\n')
}

const functionOf = (name: string, code: number, blank = 0) =>
  `import { expect } from 'vitest'\nexport function ${name}(): void {\n${bodyOf(code, blank)}\n}\n`

/** Lints `files` (path → source) with the repository's biome.jsonc, as `npm run lint` does. */
async function lint(
  files: Record<string, string>,
): Promise<{ exitCode: number; refused: string[] }> {
  const folder = mkdtempSync(join(tmpdir(), 'a2-biome-'))
  scratch.push(folder)
  copyFileSync(join(repoRoot, 'biome.jsonc'), join(folder, 'biome.jsonc'))
  symlinkSync(join(repoRoot, 'node_modules'), join(folder, 'node_modules'))
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(folder, path)), { recursive: true })
    writeFileSync(join(folder, path), source)
  }
  const { stdout, stderr, code } = await promisify(execFile)(
    process.execPath,
    [biome, 'lint', '--max-diagnostics=none', ...Object.keys(files)],
    { cwd: folder },
  ).then(
    ({ stdout, stderr }) => ({ stdout, stderr, code: 0 }),
    (error: { stdout: string; stderr: string; code: number }) => error,
  )
  // A diagnostic's first line: `path:line:column lint/group/rule ━━━`.
  const refused = [...`${stdout}\n${stderr}`.matchAll(/^(\S+):\d+:\d+ lint\/(\S+)/gm)].map(
    ([, path, rule]) => `${rule}: ${path}`,
  )
  return { exitCode: code, refused }
}

describe('the function length rule (biome.jsonc)', () => {
  it('refuses a function of 160 lines, but not one of 150 with blank lines besides, nor a test file’s describe callback', async () => {
    const { exitCode, refused } = await lint({
      'shared/model/state/long.ts': functionOf('long', 160),
      'shared/model/state/spaced.ts': functionOf('spaced', 150, 30),
      'test/shared/model/state/long.test.ts': `import { describe, expect } from 'vitest'\ndescribe('a suite', () => {\n${bodyOf(160)}\n})\n`,
    })
    expect(refused).toEqual(['complexity/noExcessiveLinesPerFunction: shared/model/state/long.ts'])
    expect(exitCode).not.toBe(0)
  }, 30_000)
})
