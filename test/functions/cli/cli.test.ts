import { execFile } from 'node:child_process'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { recordedExport } from '../../support/recorded-export.ts'
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
      for (const command of ['verify', 'inspect', 'erase', 'export', 'import', 'check']) {
        expect(stdout, flag).toContain(`a2-aws ${command}`)
      }
    }
  }, 60_000)

  it('a2-aws check runs as a process: it loads the agent module, reports, and exits (its exit code)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'a2-cli-check-'))
    await writeFile(join(dir, 's1.jsonl'), await recordedExport('s1'))
    const agents = join(repoRoot, 'test/support/check-agents.ts')
    const passed = await run('check', '--agent', `${agents}#current`, dir)
    expect(passed).toMatchObject({ code: 0, stderr: '' })
    expect(passed.stdout).toMatch(/^1 sessions \(\d+ events\) checked: none would break\n$/)
    const malformed = join(dir, 'bad.jsonl')
    await writeFile(malformed, '{"format":"a2-aws.session"')
    expect(await run('check', '--agent', `${agents}#current`, malformed)).toMatchObject({
      code: 2,
      stderr: `a2-aws check: Invalid session export ${malformed} at line 1: not JSON\n`,
    })
  }, 60_000)

  it('an unknown command says so, with the usage, and exits 2', async () => {
    const { code, stdout, stderr } = await run('deploy')
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr).toMatch(/^a2-aws: no command deploy\n\n/)
    expect(stderr).toContain('a2-aws verify')
  }, 60_000)
})
