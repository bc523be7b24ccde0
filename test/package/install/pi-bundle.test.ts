import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, inject, it } from 'vitest'
import packageJson from '../../../package.json' with { type: 'json' }
import { userShellEnv } from './user-shell.ts'

const run = promisify(execFile)
const PI_PACKAGES = ['@mariozechner/pi-agent-core', '@mariozechner/pi-ai']

// An agent on Pi's loop deployed with A2Agent, from the packed package in a
// user's project: A2 loads Pi's packages by name, so no bundle holds them,
// and `harness: 'pi'` must put them beside every function's bundle, where
// Node finds them. Bundles for real (esbuild, and CDK's `npm ci` of the
// two packages from the project's lock file).
describe("an agent on Pi's loop, deployed with A2Agent from the packed package", () => {
  const project = mkdtempSync(join(tmpdir(), 'a2-pi-bundle-'))
  afterAll(() => rmSync(project, { recursive: true, force: true }))
  const env = {
    ...userShellEnv(),
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  }
  const inProject = (file: string, args: string[], cwd = project) =>
    run(file, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 })

  it("harness: 'pi' installs Pi's packages beside each function's bundle, where an import by name from the bundle finds them", async () => {
    const { tarball } = inject('packed')
    const pin = (name: string) => `${name}@${packageJson.devDependencies[name as never]}`
    await inProject('npm', ['init', '-y'])
    await inProject('npm', [
      'install',
      tarball,
      ...['aws-cdk-lib', 'constructs', 'esbuild', ...PI_PACKAGES].map(pin),
    ])
    writeFileSync(
      join(project, 'agent.ts'),
      [
        "import { Type } from '@mariozechner/pi-ai'",
        "import { agent } from 'a2-aws/ai/server'",
        "import { awsAgentParts } from 'a2-aws/aws'",
        "import { type PiTool, piHarness } from 'a2-aws/harness/pi'",
        'const closeTicket: PiTool = {',
        "  name: 'closeTicket', label: 'Close ticket', description: 'Close a ticket',",
        '  parameters: Type.Object({ ticketId: Type.String() }),',
        "  async execute() { return { content: [{ type: 'text', text: 'Closed' }], details: {} } },",
        '}',
        'const aws = awsAgentParts()',
        "export default agent({ name: 'pi-support', model: 'openai/gpt-5.6-terra', harness: piHarness({ tools: [closeTicket] }), store: aws.store, dispatcher: aws.dispatcher, scheduler: aws.scheduler })",
      ].join('\n'),
    )
    writeFileSync(
      join(project, 'synth.mjs'),
      [
        "import { App, Stack } from 'aws-cdk-lib'",
        "import { A2Agent } from 'a2-aws/cdk'",
        "const app = new App({ outdir: 'cdk.out' })",
        "new A2Agent(new Stack(app, 'Pi'), 'Agent', { entry: 'agent.ts', harness: 'pi' })",
        'app.synth()',
      ].join('\n'),
    )
    await inProject('node', ['synth.mjs'])
    const template = JSON.parse(
      readFileSync(join(project, 'cdk.out', 'Pi.template.json'), 'utf8'),
    ) as { Resources: Record<string, { Type: string; Properties: { Code?: { S3Key?: string } } }> }
    const functions = Object.values(template.Resources).filter(
      (resource) => resource.Type === 'AWS::Lambda::Function' && resource.Properties.Code?.S3Key,
    )
    expect(functions.length).toBeGreaterThan(5)
    const assets = new Set(
      functions.map((fn) => `asset.${String(fn.Properties.Code?.S3Key).replace(/\.zip$/, '')}`),
    )
    for (const asset of assets) {
      const dir = join(project, 'cdk.out', asset)
      expect(readdirSync(dir)).toContain('index.mjs')
      for (const name of PI_PACKAGES) {
        expect(
          existsSync(join(dir, 'node_modules', name, 'package.json')),
          `${asset}: ${name}`,
        ).toBe(true)
      }
      // Pi stays out of the bundle: the agent module's own import of it is left to Node.
      const bundle = readFileSync(join(dir, 'index.mjs'), 'utf8')
      expect(bundle).toContain('"@mariozechner/pi-ai"')
      // And Node finds both from where the bundle is, as A2's import by name does.
      const { stdout } = await inProject(
        'node',
        [
          '--input-type=module',
          '-e',
          `const names = ${JSON.stringify(PI_PACKAGES)}; const [core, ai] = await Promise.all(names.map((name) => import(name))); console.log(typeof core.runAgentLoop, typeof ai.validateToolArguments)`,
        ],
        dir,
      )
      expect(stdout.trim()).toBe('function function')
    }
  }, 600_000)
})
