import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { repoRoot } from '../../support/repo-root.ts'

const run = (...args: string[]) =>
  promisify(execFile)(process.execPath, [join(repoRoot, 'functions/cli/cli.ts'), ...args]).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  )

describe('the a2-aws command', () => {
  it("a2-aws --help (and -h, help) prints every command's usage on stdout and exits 0", async () => {
    for (const flag of ['--help', '-h', 'help']) {
      const { code, stdout, stderr } = await run(flag)
      expect(code, flag).toBe(0)
      expect(stderr, flag).toBe('')
      for (const command of ['verify', 'inspect', 'erase', 'export', 'import']) {
        expect(stdout, flag).toContain(`a2-aws ${command}`)
      }
    }
  }, 60_000)

  it('an unknown command says so, with the usage, and exits 2', async () => {
    const { code, stdout, stderr } = await run('deploy')
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr).toMatch(/^a2-aws: no command deploy\n\n/)
    expect(stderr).toContain('a2-aws verify')
  }, 60_000)
})
