import { build } from 'esbuild'
import { describe, expect, it } from 'vitest'
import packageJson from '../../package.json' with { type: 'json' }
import { repoRoot } from '../support/repo-root.ts'

// Pi's and FX's loops are behind entry points of their own, so an agent on
// the AI SDK's loop carries neither: FX's starts processes
// (`node:child_process`), Pi's names its packages for Node to load. Each
// module below is bundled for Node as a project's server would be (esbuild,
// the package imported by its name through its `exports`, resolved to the
// sources), its packages left out: what is checked is what the package's
// own code reaches. The FX module is the check's own check: a bundle that
// reaches child_process is seen to.

/** Every package the project names, kept out of the bundle (and their subpaths). */
const PACKAGES = Object.keys({
  ...packageJson.dependencies,
  ...packageJson.devDependencies,
  ...packageJson.peerDependencies,
}).flatMap((name) => [name, `${name}/*`])

/** The code of a tiny server module, bundled for Node. */
async function bundle(contents: string): Promise<{ code: string; inputs: string[] }> {
  const result = await build({
    stdin: { contents, loader: 'ts', resolveDir: repoRoot, sourcefile: 'server.ts' },
    absWorkingDir: repoRoot,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    conditions: ['a2-source'],
    external: PACKAGES,
    metafile: true,
    write: false,
    logLevel: 'silent',
  })
  const [output] = result.outputFiles
  if (!output) throw new Error('esbuild wrote no bundle')
  return { code: output.text, inputs: Object.keys(result.metafile.inputs) }
}

const AGENT = `
import { agent } from 'a2-aws/ai/server'
export const assistant = agent({ name: 'support', model: 'openai/gpt-5.6-terra' })
`
const PI = `
import { agent } from 'a2-aws/ai/server'
import { piHarness } from 'a2-aws/harness/pi'
export const assistant = agent({ name: 'support', model: 'openai/gpt-5.6-terra', harness: piHarness() })
`
const FX = `
import { agent } from 'a2-aws/ai/server'
import { fxHarness } from 'a2-aws/harness/fx'
export const assistant = agent({ name: 'coder', model: 'openai/gpt-5.6-terra', harness: fxHarness() })
`

const PI_PACKAGE = /@mariozechner\/pi-/
const ACP_PACKAGE = /@agentclientprotocol\//
const CHILD_PROCESS = /child_process/

describe("the harness entry points (a server's bundle, esbuild for Node)", () => {
  it("an agent on the AI SDK's loop (a2-aws/ai/server alone) carries neither Pi nor FX: no child_process, no Pi or ACP package, no shared/harness/ module", async () => {
    const { code, inputs } = await bundle(AGENT)
    expect(inputs).toContain('shared/agent/wiring/agent.ts')
    expect(inputs.filter((input) => input.startsWith('shared/harness/'))).toEqual([])
    expect(code).not.toMatch(CHILD_PROCESS)
    expect(code).not.toMatch(PI_PACKAGE)
    expect(code).not.toMatch(ACP_PACKAGE)
  })

  it('an agent on a2-aws/harness/fx carries child_process (so the check above can fail) and the ACP SDK, but no Pi', async () => {
    const { code } = await bundle(FX)
    expect(code).toMatch(/from "node:child_process"/)
    expect(code).toMatch(ACP_PACKAGE)
    expect(code).not.toMatch(PI_PACKAGE)
  })

  it("an agent on a2-aws/harness/pi carries Pi's package names, for Node to load, but no child_process or ACP", async () => {
    const { code } = await bundle(PI)
    expect(code).toMatch(PI_PACKAGE)
    expect(code).not.toMatch(CHILD_PROCESS)
    expect(code).not.toMatch(ACP_PACKAGE)
  })
})
