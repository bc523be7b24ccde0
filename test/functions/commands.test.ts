import { spawn } from 'node:child_process'
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

import { repoRoot as root } from '../support/repo-root.ts'

/** Runs one of the repo's commands the way its npm script does, to its exit. */
function runCommand(
  file: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => {
      stdout += chunk
    })
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    child.once('error', reject)
    child.once('exit', (code) => resolve({ code, stdout, stderr }))
  })
}

/**
 * A port something listens on until the test ends. Each test holds its own:
 * the tests run concurrently, and a shared one closed by another test's
 * cleanup let `npm start` take the port and run until the timeout.
 */
async function busyPort(onTestFinished: (cleanup: () => Promise<void>) => void): Promise<number> {
  const blocker: Server = createServer()
  await new Promise<void>((done) => blocker.listen(0, '127.0.0.1', done))
  onTestFinished(() => new Promise<void>((done) => blocker.close(() => done())))
  return (blocker.address() as { port: number }).port
}

describe.concurrent('the commands say what went wrong in one line, without a stack', () => {
  it('npm start on a busy port: "Port N on 127.0.0.1 is in use", exit code 1', async ({
    onTestFinished,
  }) => {
    const port = await busyPort(onTestFinished)
    const run = await runCommand('functions/local/local-server.ts', { PORT: String(port) })
    expect(run.code).toBe(1)
    expect(run.stderr.trim()).toBe(
      `npm start: Port ${port} on 127.0.0.1 is in use: stop what is listening there, or pick another port with PORT=<port> (PORT=0 picks a free one).`,
    )
  }, 60_000)

  const badAddresses = [
    [
      { PORT: 'abc' },
      'Port "abc" is not a port: pick an integer from 0 to 65535 with PORT=<port> (PORT=0 picks a free one).',
    ],
    [
      { PORT: '99999' },
      'Port "99999" is not a port: pick an integer from 0 to 65535 with PORT=<port> (PORT=0 picks a free one).',
    ],
    [
      // TEST-NET-1 (RFC 5737): a valid address that is no machine's here.
      { HOST: '192.0.2.1' },
      'Cannot listen on host 192.0.2.1 (not an address of this machine): pick another with HOST=<host> (127.0.0.1, the default, listens on loopback only; 0.0.0.0 on every interface).',
    ],
    [
      { HOST: 'no-such-host.invalid' },
      'Cannot listen on host no-such-host.invalid (the name does not resolve): pick another with HOST=<host> (127.0.0.1, the default, listens on loopback only; 0.0.0.0 on every interface).',
    ],
  ] as const
  for (const [env, line] of badAddresses) {
    const [name, value] = Object.entries(env)[0] as [string, string]
    it(`npm start with ${name}=${value}: one line saying what to pick, exit code 1`, async () => {
      const run = await runCommand('functions/local/local-server.ts', { PORT: '0', ...env })
      expect(run.code).toBe(1)
      expect(run.stderr.trim()).toBe(`npm start: ${line}`)
    }, 60_000)

    it(`npm run local with ${name}=${value}: the same line, before it starts a moto server`, async () => {
      // A Python that is not there: a run that got as far as moto would say so instead.
      const run = await runCommand('functions/local/local-aws-server.ts', {
        PORT: '0',
        ...env,
        A2_PYTHON: '/nonexistent/python3',
        A2_AWS_ENDPOINT: '',
      })
      expect(run.code).toBe(1)
      expect(run.stderr.trim()).toBe(`npm run local: ${line}`)
    }, 60_000)
  }

  it('npm run local without Python: says the moto server needs it and how to install moto', async () => {
    const run = await runCommand('functions/local/local-aws-server.ts', {
      A2_PYTHON: '/nonexistent/python3',
      A2_AWS_ENDPOINT: '',
    })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('npm run local: /nonexistent/python3 was not found')
    expect(run.stderr).toContain("pip install 'moto[server]'")
    expect(run.stderr).not.toMatch(/^\s+at /m)
  }, 60_000)

  it('npm run local without moto: says moto is not installed and how to install it', async () => {
    // Python without its site-packages: no moto, as on a machine without it.
    const dir = mkdtempSync(join(tmpdir(), 'a2-python-'))
    const python = join(dir, 'python-without-moto')
    writeFileSync(python, '#!/bin/sh\nexec python3 -S "$@"\n')
    chmodSync(python, 0o755)
    const run = await runCommand('functions/local/local-aws-server.ts', {
      A2_PYTHON: python,
      A2_AWS_ENDPOINT: '',
    })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain(`npm run local: moto is not installed for ${python}`)
    expect(run.stderr).toContain("pip install 'moto[server]'")
    expect(run.stderr).not.toMatch(/^\s+at /m)
  }, 60_000)
})
