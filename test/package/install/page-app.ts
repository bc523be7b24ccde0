import { execFile } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import packageJson from '../../../package.json' with { type: 'json' }
import { type GatewayDouble, gatewayDouble } from '../../../shared/testing/gateway-double.ts'
import { lastUserText, text } from '../../../shared/testing/model-script.ts'
import { satisfies } from '../../support/version-range.ts'
import { type BackgroundServer, startInBackground } from './background-server.ts'
import { PAGE } from './docs-page.ts'
import { type Followed, followPage, PAGE_TARBALL } from './follow-page.ts'
import { converse } from './page-conversation.ts'
import { userShellEnv } from './user-shell.ts'

const run = promisify(execFile)

/** Who follows the page. */
export interface PageApp {
  /** The React an app already has (installed before the page); without it, an empty folder. */
  existingReact?: string
  /** Also runs check-entry-points.ts there: every entry point, and agents on the package's doubles. */
  checkEntryPoints?: boolean
}

/** The page's default model, as the page's agent names it. */
const PAGE_MODEL = 'openai/gpt-5.6-terra'

/**
 * docs/use-in-your-project.md followed as written in a scratch project
 * outside the repo, in a user's shell (the machine's Node and npm, nothing
 * of the repo's on the PATH): `npm init -y` (or an app of its own with
 * React), every command and file of the page, then the checks a user would
 * make: one React, the latest TypeScript, the page in Chromium having a
 * conversation with `npm start`'s agent, and the synthesized stack. The
 * model is the page's AI Gateway model ID, through the real Gateway
 * provider, pointed at a local Gateway double (gateway-preload.mjs).
 */
export function describePageApp(app: PageApp): void {
  const who = app.existingReact
    ? `an app with its own React ${app.existingReact}`
    : 'an empty folder'
  describe(`${PAGE}, followed in ${who}`, () => {
    const project = mkdtempSync(join(tmpdir(), 'a2-page-app-'))
    const { tarball, filename } = inject('packed')
    // Registry chatter the page's commands would print, off; the
    // telemetry of the CDK CLI, off (as the repo's own scripts have it).
    const env = {
      ...userShellEnv(),
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
      CDK_DISABLE_CLI_TELEMETRY: 'true',
    }
    let gateway: GatewayDouble
    let server: BackgroundServer | undefined
    let followed: Followed

    const inProject = (file: string, args: string[]) =>
      run(file, args, { cwd: project, env, maxBuffer: 64 * 1024 * 1024 })

    beforeAll(async () => {
      gateway = await gatewayDouble({
        script: (call) => text(`You said: ${lastUserText(call)}`),
      })
      if (app.existingReact) {
        // The app as it was before its developer read the page.
        await inProject('npm', ['init', '-y'])
        await inProject('npm', [
          'install',
          `react@${app.existingReact}`,
          `react-dom@${app.existingReact}`,
        ])
      }
      followed = await followPage(project, {
        existingApp: Boolean(app.existingReact),
        tarball,
        env,
        startInBackground: async (command) => {
          server = await startInBackground(command, project, {
            ...env,
            PORT: '0', // the page: PORT=0 picks a free port
            AI_GATEWAY_API_KEY: 'test-gateway-key', // the page's key variable; the double's key
            // Test-only: the Gateway provider's base URL, into the server's Node only.
            A2_TEST_GATEWAY_BASE_URL: gateway.baseURL,
            npm_config_node_options: `--import=${pathToFileURL(join(import.meta.dirname, 'gateway-preload.mjs'))}`,
          })
        },
      })
    })

    afterAll(async () => {
      server?.stop()
      await gateway?.close()
      rmSync(project, { recursive: true, force: true })
    })

    it('runs every command of the page but those that need a clone or an AWS account', () => {
      const skipped = followed.skipped.map(({ command }) => command.split(/\s+#/)[0]?.trim())
      expect(skipped).toEqual([
        'git clone <repository URL> a2-aws && (cd a2-aws && npm install && npm pack)',
        ...(app.existingReact ? ['npm init -y'] : []),
        ...(app.existingReact ? ['npm install react react-dom'] : []),
        'npx cdk bootstrap',
        'npx cdk deploy',
      ])
      expect(followed.ran.join('\n')).toMatch(PAGE_TARBALL)
      // The page names the tarball npm pack makes (a version bump renames it).
      expect(PAGE_TARBALL.exec(followed.ran.join('\n'))?.[1]).toBe(filename)
    })

    it('makes an ES module project that runs on Node 22.18 or newer, whatever Node the machine has', async () => {
      const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'))
      expect(manifest.type).toBe('module')
      const { stdout } = await inProject('npm', ['exec', '--', 'node', '--version'])
      const [major = 0, minor = 0] = stdout.trim().slice(1).split('.').map(Number)
      expect(major > 22 || (major === 22 && minor >= 18), stdout).toBe(true)
    })

    it(`uses ${app.existingReact ? "the app's React" : 'the React the page installs'}, and installs react, ai and zod once each, none under node_modules/a2-aws`, async () => {
      const copiesOf = async (name: string) => {
        const { stdout } = await inProject('npm', ['query', `#${name}`])
        return (JSON.parse(stdout) as { version: string; location: string }[]).map(
          ({ version, location }) => ({ version, location }),
        )
      }
      const react = await copiesOf('react')
      expect(react.map(({ location }) => location)).toEqual(['node_modules/react'])
      const version = react[0]?.version as string
      if (app.existingReact) expect(version).toBe(app.existingReact)
      expect(satisfies(version, packageJson.peerDependencies.react)).toBe(true)
      expect(await copiesOf('react-dom')).toEqual([{ version, location: 'node_modules/react-dom' }])
      for (const name of ['ai', 'zod'] as const) {
        const [copy, ...more] = await copiesOf(name)
        expect(more, name).toEqual([])
        expect(copy?.location, name).toBe(`node_modules/${name}`)
        const range = packageJson.peerDependencies[name]
        expect(satisfies(copy?.version as string, range), `${name} in ${range}`).toBe(true)
      }
    })

    it("type-checks the page's files with the latest TypeScript (npx tsc, on the page's tsconfig.json)", async () => {
      expect(followed.ran).toContain('npx tsc')
      const installed = JSON.parse(
        readFileSync(join(project, 'node_modules', 'typescript', 'package.json'), 'utf8'),
      ).version
      const { stdout: latest } = await inProject('npm', ['view', 'typescript', 'version'])
      expect(installed).toBe(latest.trim())
    })

    it('npm start: a session needs its token (401 TOKEN_MISSING), and POST {} opens one with its token', async () => {
      const url = server?.url as string
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/agent$/)
      const stranger = await fetch(`${url}?sessionId=someone-else`)
      expect(stranger.status).toBe(401)
      expect((await stranger.json()).error.code).toBe('TOKEN_MISSING')
      const opened = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
      expect(opened.status).toBe(201)
      expect(await opened.json()).toMatchObject({
        sessionId: expect.any(String),
        token: expect.any(String),
      })
    })

    it("Chromium: the built page opens a session and has a conversation with the agent, on the page's model through AI Gateway", async () => {
      const origin = new URL(server?.url as string).origin
      const seen = await converse(origin, 'Hello from Chromium', 'You said: Hello from Chromium')
      expect(seen.paragraphs).toEqual([
        'user: Hello from Chromium',
        'assistant: You said: Hello from Chromium',
      ])
      expect(seen.errors).toEqual([])
      expect(gateway.calls.map((call) => call.modelId)).toContain(PAGE_MODEL)
    })

    it('npx cdk synth: the Support stack with its table and API, and the AgentUrl output that cdk deploy prints, ending in /agent', () => {
      const template = JSON.parse(
        readFileSync(join(project, 'cdk.out', 'Support.template.json'), 'utf8'),
      ) as {
        Resources: Record<string, { Type: string }>
        Outputs: Record<string, { Value: unknown }>
      }
      const types = Object.values(template.Resources).map((resource) => resource.Type)
      expect(types).toContain('AWS::DynamoDB::Table')
      expect(types).toContain('AWS::ApiGateway::RestApi')
      expect(JSON.stringify(template.Outputs.AgentUrl?.Value)).toMatch(/\/agent"\]\]\}$/)
    })

    if (app.checkEntryPoints) {
      it("type-checks against the installed types, imports every entry point, renders useAgent() with the app's React, answers on a scripted model over HTTP and on a `bedrock:` model through the Bedrock double, and synthesizes A2Agent", async () => {
        copyFileSync(
          join(import.meta.dirname, 'check-entry-points.ts'),
          join(project, 'check-entry-points.ts'),
        )
        // Against the installed package's types, with the page's compiler options.
        writeFileSync(
          join(project, 'tsconfig.entry-points.json'),
          JSON.stringify({ extends: './tsconfig.json', include: ['check-entry-points.ts'] }),
        )
        const checked = await inProject('npx', ['tsc', '-p', 'tsconfig.entry-points.json']).catch(
          (error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }),
        )
        expect(checked.stdout).toBe('')
        const { stdout } = await inProject('npm', ['exec', '--', 'node', 'check-entry-points.ts'])
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
      })
    }
  })
}
