import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import ts from 'typescript'
import { afterAll, describe, expect, it } from 'vitest'
import { repoRoot } from '../../support/repo-root.ts'

const run = promisify(execFile)
const dir = mkdtempSync(join(tmpdir(), 'a2-check-node-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// The module as the package ships it: compiled to plain JavaScript.
const check = join(dir, 'check-node.mjs')
writeFileSync(
  check,
  ts.transpileModule(readFileSync(join(repoRoot, 'shared/node/check-node.ts'), 'utf8'), {
    compilerOptions: { target: ts.ScriptTarget.ES2023, module: ts.ModuleKind.ESNext },
  }).outputText,
)
const server = join(dir, 'server.ts')
writeFileSync(server, "const port: number = 3000\nconsole.log('served on', port)\n")
writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n')

async function start(nodeFlags: string[]) {
  return run(process.execPath, [...nodeFlags, '--import', check, server], { cwd: dir }).catch(
    (error: { code: number; stdout: string; stderr: string }) => error,
  )
}

describe('a2-aws/check-node, loaded with --import before a TypeScript entry', () => {
  it('does nothing on a Node that strips types: the entry runs', async () => {
    const started = await start([])
    expect(started.stdout).toBe('served on 3000\n')
    expect(started.stderr).toBe('')
  })

  it('stops a Node that cannot run .ts files with one line naming that Node, Node 22.18 and the fix, instead of ERR_UNKNOWN_FILE_EXTENSION', async () => {
    // A Node 22 with type stripping off stands for Node 20 here; the package
    // test runs the page's `npm start` command on the machine's own Node.
    const refused = await start(['--no-experimental-strip-types'])
    expect(refused).toMatchObject({ code: 1, stdout: '' })
    const lines = refused.stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain(`this is Node ${process.version} (${process.execPath})`)
    expect(lines[0]).toContain('needs Node 22.18 or newer')
    expect(lines[0]).toContain('npm install --save-dev node@22')
    expect(refused.stderr).not.toContain('ERR_UNKNOWN_FILE_EXTENSION')
  })
})
