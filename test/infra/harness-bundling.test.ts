import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { App, Stack } from 'aws-cdk-lib'
import { describe, expect, it } from 'vitest'
import { harnessModules } from '../../infra/agent-functions.ts'
import { A2Agent } from '../../infra/index.ts'
import { repoRoot } from '../support/repo-root.ts'

// What A2Agent's functions carry for the agent's harness. A2 loads a
// harness's packages by name, so esbuild leaves them out of the bundle: the
// construct installs Pi's beside it (CDK's `nodeModules`, from the lock
// file). The real bundle, from the packed package in a user's project, is
// test/package/install/pi-bundle.test.ts.
const unbundled = () => new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Test')

describe("A2Agent's functions and the agent's harness", () => {
  it("Given the AI SDK's loop (the default), When the functions are bundled, Then nothing is installed beside the bundle", () => {
    expect(harnessModules(undefined, repoRoot)).toEqual([])
    expect(harnessModules('ai-sdk', repoRoot)).toEqual([])
  })

  it("Given harness 'pi', When the functions are bundled, Then Pi's two packages are installed beside each bundle", () => {
    expect(harnessModules('pi', repoRoot)).toEqual([
      '@mariozechner/pi-agent-core',
      '@mariozechner/pi-ai',
    ])
    expect(
      () =>
        new A2Agent(unbundled(), 'Agent', { entry: 'functions/example-agent.ts', harness: 'pi' }),
    ).not.toThrow()
  })

  it("Given harness 'pi' in a project that has not installed Pi, When the stack is synthesized, Then it fails naming what to install", () => {
    const empty = mkdtempSync(join(tmpdir(), 'a2-no-pi-'))
    expect(() => harnessModules('pi', empty)).toThrow(
      `a2: harness 'pi' needs @mariozechner/pi-agent-core and @mariozechner/pi-ai installed in ${empty}, whose lock file gives the version each function installs: npm install @mariozechner/pi-agent-core @mariozechner/pi-ai`,
    )
  })

  it("Given harness 'fx', When the construct is made, Then it refuses: Lambda has neither the ACP agent's command nor the time a permission request holds a step", () => {
    expect(
      () =>
        new A2Agent(unbundled(), 'Agent', { entry: 'functions/example-agent.ts', harness: 'fx' }),
    ).toThrow(/A2Agent cannot deploy harness 'fx'.*Node server or container/)
  })

  it('Given a harness it does not know (from JavaScript), When the construct is made, Then it refuses it', () => {
    expect(() => harnessModules('pie' as never, repoRoot)).toThrow(
      `a2: A2Agent's harness is "pie": use 'ai-sdk' (the default) or 'pi'`,
    )
  })
})
