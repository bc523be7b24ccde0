import { execFile } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import packageJson from '../../../package.json' with { type: 'json' }
import { type BedrockDouble, bedrockDouble } from '../../../shared/testing/bedrock-double.ts'
import { satisfies } from '../../support/version-range.ts'
import { type BackgroundServer, runBriefly, startInBackground } from './background-server.ts'
import { PAGE } from './docs-page.ts'
import { type Followed, followPage, PAGE_TARBALL } from './follow-page.ts'
import { converse, onPage, send } from './page-conversation.ts'
import { userShellEnv } from './user-shell.ts'

const run = promisify(execFile)

/** Who follows the page. */
export interface PageApp {
  /** The React an app already has (installed before the page); without it, an empty folder. */
  existingReact?: string
  /** Also runs check-entry-points.ts there: every entry point, and agents on the package's doubles. */
  checkEntryPoints?: boolean
  /**
   * Also what a user meets when something is wrong: a Node too old, a bad
   * or empty PORT, and in Chromium a turn that fails on a wrong model ID.
   */
  failures?: boolean
}

/** The answer the page's agent gives "Hello" on the offline demo model, as the page shows it. */
const HELLO_ANSWER =
  'assistant: [offline demo model] You said: "Hello". This is A2\'s offline demo model, which answers by rules with no key and no network: give the agent a real model for real answers. Meanwhile try "close ticket T-42" or "show me some markdown".'

/** A Bedrock model ID with a typo, as a user might set A2_MODEL. */
const WRONG_MODEL = 'bedrock:us.anthropic.claude-sonet-4-5-20250929-v1:0'

/**
 * docs/use-in-your-project.md followed as written in a scratch project
 * outside the repo, in a user's shell (the machine's Node and npm, nothing
 * of the repo's on the PATH): `npm init -y` (or an app of its own with
 * React), every command and file of the page, then the checks a user would
 * make: one React, the latest TypeScript, the page in Chromium having a
 * conversation with `npm start`'s agent, and the synthesized stack. The
 * model is the page's own: `A2_MODEL=offline npm start`, with no key, no
 * network and nothing added to the server.
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
    const env: NodeJS.ProcessEnv = {
      ...userShellEnv(),
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
      CDK_DISABLE_CLI_TELEMETRY: 'true',
    }
    // No key: the page's offline line needs none, whatever this shell holds.
    delete env.AI_GATEWAY_API_KEY
    let server: BackgroundServer | undefined
    let followed: Followed

    const inProject = (file: string, args: string[]) =>
      run(file, args, { cwd: project, env, maxBuffer: 64 * 1024 * 1024 })

    beforeAll(async () => {
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
          // The page: PORT=0 picks a free port.
          server = await startInBackground(command, project, { ...env, PORT: '0' })
        },
      })
    })

    afterAll(() => {
      server?.stop()
      rmSync(project, { recursive: true, force: true })
    })

    it('runs every command of the page but those that need a clone or an AWS account', () => {
      const skipped = followed.skipped.map(({ command }) => command.split(/\s+#/)[0]?.trim())
      expect(skipped).toEqual([
        '(cd ../a2-aws && npm install && npm pack)',
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

    it('Chromium: the built page opens a session and has a whole conversation with the agent on the offline demo model, a tool call included, with no key and no network', async () => {
      expect(followed.ran).toContain(
        'A2_MODEL=offline npm start   # PORT=0 picks a free port; a busy port, a bad one or a host not here is one typed error (PORT_IN_USE, INVALID_PORT, HOST_UNAVAILABLE)',
      )
      const origin = new URL(server?.url as string).origin
      const seen = await converse(origin, [
        { send: 'Hello', answer: 'or "show me some markdown".' },
        { send: 'close ticket T-42', answer: 'Done. The tool answered' },
      ])
      expect(seen.paragraphs).toEqual([
        'user: Hello',
        HELLO_ANSWER,
        'user: close ticket T-42',
        'assistant: [closeTicket] Done. The tool answered: {"ticketId":"T-42","closed":true}',
      ])
      expect(seen.errors).toEqual([])
    })

    if (app.failures) {
      it('Chromium: a turn that fails on a wrong model ID shows why, and Retry runs it again', async () => {
        // The page's npm start with a mistyped Bedrock model ID, against a
        // Bedrock double that answers it as Bedrock does.
        const bedrock: BedrockDouble = await bedrockDouble({
          script: () => ({
            error: 'The provided model identifier is invalid.',
            status: 400,
            type: 'ValidationException',
          }),
        })
        const bedrockEnv = Object.fromEntries(
          Object.entries(bedrock.env()).filter(([, value]) => value !== undefined),
        )
        const failing = await startInBackground(`A2_MODEL=${WRONG_MODEL} npm start`, project, {
          ...env,
          ...bedrockEnv,
          PORT: '0',
        })
        try {
          const { result, errors } = await onPage(new URL(failing.url).origin, async (page) => {
            await send(page, 'Hello')
            const alert = page.getByRole('alert')
            await alert.waitFor({ timeout: 30_000 })
            const first = await alert.textContent()
            await page.getByRole('button', { name: 'Retry' }).click()
            // The retried step reaches the model again, and fails the same way.
            for (let waited = 0; bedrock.calls.length < 2 && waited < 30_000; waited += 100) {
              await new Promise((resolve) => setTimeout(resolve, 100))
            }
            await alert.waitFor({ timeout: 30_000 })
            return {
              first,
              again: await alert.textContent(),
              sendEnabled: await page.getByRole('button', { name: 'Send' }).isEnabled(),
            }
          })
          expect(result.first).toBe(
            'The agent could not answer: The provided model identifier is invalid. Retry',
          )
          expect(bedrock.calls.map((call) => call.modelId)).toEqual([
            WRONG_MODEL.slice('bedrock:'.length),
            WRONG_MODEL.slice('bedrock:'.length),
          ])
          expect(result.again).toBe(result.first)
          expect(result.sendEnabled).toBe(false)
          expect(errors).toEqual([])
        } finally {
          failing.stop()
          await bedrock.close()
        }
      })

      it("on a Node that cannot run .ts files, the page's npm start command stops with one line saying what to do", async () => {
        const start = JSON.parse((await inProject('npm', ['pkg', 'get', 'scripts.start'])).stdout)
        expect(start).toBe('node --import a2-aws/check-node src/server.ts')
        // The user's shell: the machine's own Node (20 here), not the project's.
        const { stdout: machineNode } = await inProject('node', ['--version'])
        const [major = 0, minor = 0] = machineNode.trim().slice(1).split('.').map(Number)
        const old = major < 22 || (major === 22 && minor < 18)
        const command = old ? start : start.replace(/^node /, 'npx --yes node@20 ')
        const run = await runBriefly(command, project, env, /agent on /)
        expect(run.code, run.output).toBe(1)
        const lines = run.output.trim().split('\n')
        expect(lines).toHaveLength(1)
        expect(lines[0]).toMatch(
          /^a2-aws: this is Node v\d+\.\d+\.\d+ \(.+\), which cannot run TypeScript files as they are: the project needs Node 22\.18 or newer\. `npm install --save-dev node@22` gives the project its own/,
        )
        expect(run.output).not.toContain('ERR_UNKNOWN_FILE_EXTENSION')
      })

      it('npm start with PORT=abc says "Port "abc" is not a port" (INVALID_PORT), and with PORT= (empty) listens on 3000, as unset', async () => {
        const bad = await runBriefly(
          'A2_MODEL=offline npm start',
          project,
          { ...env, PORT: 'abc' },
          /agent on /,
        )
        expect(bad.code).toBe(1)
        expect(bad.output).toContain('Port "abc" is not a port: pick an integer from 0 to 65535')
        expect(bad.output).not.toContain('NaN')
        const empty = await runBriefly(
          'A2_MODEL=offline npm start',
          project,
          { ...env, PORT: '' },
          /agent on |is in use/,
        )
        // Port 3000 may be another's on a shared machine: either way it was 3000.
        expect(empty.output).toMatch(
          /agent on http:\/\/127\.0\.0\.1:3000\/api\/agent|Port 3000 on 127\.0\.0\.1 is in use/,
        )
      })
    }

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
