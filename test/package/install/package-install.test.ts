import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import packageJson from '../../../package.json' with { type: 'json' }
import { codeBlocks } from '../../support/code-blocks.ts'
import { satisfies } from '../../support/version-range.ts'

// `npm run test:package`: packs the project as `npm publish` would (the
// `prepack` script builds dist/), installs the tarball into a scratch
// project outside the repo, and uses it there as a user would: every entry
// point, an agent on a scripted model, a stack with A2Agent, and the files
// of docs/use-in-your-project.md (type-checked, the server started, the CDK
// app synthesized). Installing asks the npm registry for package metadata
// (`--prefer-offline`: tarballs come from npm's cache when it has them).
const run = promisify(execFile)
const root = join(import.meta.dirname, '..', '..', '..')
const work = mkdtempSync(join(tmpdir(), 'a2-package-'))
const project = join(work, 'project')
// Node 22 (the dev dependency) first, as npm scripts have it.
const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` }
const dev = packageJson.devDependencies
// The app's own React, another version than the repo's (issue 23: an app on
// 19.2.9 got a second React under node_modules/a2-aws, and a blank page).
const APP_REACT = '19.2.9'

let tarball = ''
let files: string[] = []

beforeAll(async () => {
  const packed = await run('npm', ['pack', '--json', '--pack-destination', work], {
    cwd: root,
    env,
    maxBuffer: 64 * 1024 * 1024,
  })
  const [report] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as {
    filename: string
    files: { path: string }[]
  }[]
  if (!report) throw new Error('npm pack reported nothing')
  tarball = join(work, report.filename)
  files = report.files.map((file) => file.path)

  mkdirSync(project)
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'scratch', private: true, type: 'module' }),
  )
  await run(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      tarball,
      `aws-cdk-lib@${dev['aws-cdk-lib']}`,
      `constructs@${dev.constructs}`,
      `esbuild@${dev.esbuild}`,
      `typescript@${dev.typescript}`,
      `@types/node@${dev['@types/node']}`,
      `@types/react@${dev['@types/react']}`,
      `@types/react-dom@${dev['@types/react-dom']}`,
      // React is an optional peer: the app brings it. ai and zod, the
      // required peers, are left to npm, which installs them as a user gets them.
      `react@${APP_REACT}`,
      `react-dom@${APP_REACT}`,
    ],
    { cwd: project, env, maxBuffer: 64 * 1024 * 1024 },
  )
  // The page's files, where the page says they live.
  for (const block of codeBlocks('docs/use-in-your-project.md')) {
    if (!block.file) continue
    mkdirSync(dirname(join(project, block.file)), { recursive: true })
    writeFileSync(join(project, block.file), `${block.code}\n`)
  }
  copyFileSync(
    join(import.meta.dirname, 'check-entry-points.ts'),
    join(project, 'check-entry-points.ts'),
  )
}, 900_000)

/** Every copy of a package npm installed in the scratch project (`npm query` lists each once). */
async function copiesOf(name: string): Promise<{ version: string; location: string }[]> {
  const { stdout } = await run('npm', ['query', `#${name}`], {
    cwd: project,
    env,
    maxBuffer: 16 * 1024 * 1024,
  })
  const found = JSON.parse(stdout) as { version: string; location: string }[]
  return found.map(({ version, location }) => ({ version, location }))
}

const children: ChildProcess[] = []
afterAll(() => {
  for (const child of children) child.kill('SIGKILL')
})

describe('the packed package, installed into a scratch project', () => {
  it('holds dist/ (each entry point built, with its types), README and docs, and no sources or tests', () => {
    for (const [entry, target] of Object.entries(packageJson.exports)) {
      if (typeof target === 'string') continue
      expect(files, entry).toContain(target.default.slice(2))
      expect(files, entry).toContain(target.types.slice(2))
    }
    expect(files).toContain('dist/functions/lambda.js')
    expect(files).toContain('dist/functions/cli.js')
    expect(files).toContain('README.md')
    expect(files).toContain('docs/use-in-your-project.md')
    expect(files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([])
    expect(files.filter((file) => file.includes('test/') || file.includes('local-runner'))).toEqual(
      [],
    )
  })

  it("uses the app's React and installs the peers once: one copy each of react, ai and zod, none under node_modules/a2-aws", async () => {
    expect(APP_REACT).not.toBe(dev.react)
    expect(await copiesOf('react')).toEqual([
      { version: APP_REACT, location: 'node_modules/react' },
    ])
    for (const name of ['ai', 'zod'] as const) {
      const [copy, ...more] = await copiesOf(name)
      expect(more, name).toEqual([])
      expect(copy?.location, name).toBe(`node_modules/${name}`)
      const range = packageJson.peerDependencies[name]
      expect(satisfies(copy?.version as string, range), `${name} in ${range}`).toBe(true)
    }
  }, 120_000)

  it("imports every entry point, renders useAgent() with the app's React, answers on a scripted model over HTTP and on a `bedrock:` model through the Bedrock double, and synthesizes A2Agent", async () => {
    const { stdout } = await run(process.execPath, ['check-entry-points.ts'], {
      cwd: project,
      env,
      maxBuffer: 16 * 1024 * 1024,
    })
    const seen = JSON.parse(stdout.trim().split('\n').at(-1) as string)
    for (const entry of Object.keys(packageJson.exports)) {
      if (entry === './package.json') continue
      expect(seen.exportsOf[`a2-aws${entry.slice(1)}`], entry).not.toEqual([])
    }
    expect(seen.exportsOf['a2-aws/node']).toEqual([
      'HostUnavailableError',
      'InvalidPortError',
      'PortInUseError',
      'serveAgent',
      'serveFetch',
    ])
    expect(seen.rendered).toBe('<p>idle: 0 messages</p>')
    expect(seen).toMatchObject({
      posted: 200,
      answer: 'Hello from the tarball',
      bedrockAnswer: 'Hello from Bedrock',
      tables: 1,
    })
    expect(seen.functions).toBeGreaterThan(5)
  }, 300_000)

  it("docs/use-in-your-project.md: its files type-check against the installed package's types", async () => {
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2023',
          lib: ['ES2023', 'DOM', 'DOM.Iterable'],
          module: 'nodenext',
          strict: true,
          noEmit: true,
          allowImportingTsExtensions: true,
          jsx: 'react-jsx',
          skipLibCheck: true,
          types: ['node'],
        },
        include: ['src', 'infra', 'web', 'check-entry-points.ts'],
      }),
    )
    const checked = await run(join(project, 'node_modules', '.bin', 'tsc'), ['-p', '.'], {
      cwd: project,
      env,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }))
    expect(checked.stdout).toBe('')
  }, 300_000)

  it('docs/use-in-your-project.md: `node src/server.ts` serves the agent at /api/agent', async () => {
    const server = spawn(process.execPath, ['src/server.ts'], {
      cwd: project,
      env: { ...env, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    children.push(server)
    let output = ''
    server.stderr?.on('data', (chunk) => {
      output += chunk
    })
    const url = await new Promise<string>((resolve, reject) => {
      server.stdout?.on('data', (chunk) => {
        output += chunk
        const found = /agent on (\S+)/.exec(output)
        if (found) resolve(found[1] as string)
      })
      server.once('exit', () => reject(new Error(`the server exited: ${output}`)))
    })
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/agent$/)
    const posted = await fetch(`${url}?sessionId=doc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        events: [
          {
            id: 'm1',
            type: 'ai.control.requested',
            payload: {
              action: 'message',
              generate: false,
              message: { id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] },
            },
          },
        ],
      }),
    })
    expect(posted.status).toBe(200)
    const stream = await fetch(`${url}?sessionId=doc`)
    expect(stream.headers.get('content-type')).toContain('text/event-stream')
    const reader = stream.body?.getReader()
    let seen = ''
    while (!seen.includes('ai.message.created')) {
      const next = await reader?.read()
      if (!next || next.done) break
      seen += new TextDecoder().decode(next.value)
    }
    await reader?.cancel()
    expect(seen).toContain('ai.message.created')
    server.kill('SIGKILL')
  }, 120_000)

  it('docs/use-in-your-project.md: the CDK app synthesizes its A2Agent stack, bundling src/agent.ts', async () => {
    const outdir = mkdtempSync(join(work, 'cdk.out-'))
    // What `cdk synth` does: run the app with CDK_OUTDIR set, which synthesizes on exit.
    await run(process.execPath, ['infra/app.ts'], {
      cwd: project,
      env: { ...env, CDK_OUTDIR: outdir },
      maxBuffer: 16 * 1024 * 1024,
    })
    const template = JSON.parse(readFileSync(join(outdir, 'Support.template.json'), 'utf8')) as {
      Resources: Record<string, { Type: string }>
    }
    const types = Object.values(template.Resources).map((resource) => resource.Type)
    expect(types).toContain('AWS::DynamoDB::Table')
    expect(types).toContain('AWS::ApiGateway::RestApi')
  }, 300_000)
})
