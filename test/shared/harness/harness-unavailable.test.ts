import { describe, expect, it, vi } from 'vitest'
import { HarnessUnavailableError } from '../../../shared/agent/harness/harness-errors.ts'
import { acpLoader } from '../../../shared/harness/fx/load-acp.ts'
import { type ImportModule, piLoader } from '../../../shared/harness/pi/load-pi.ts'
import { hasA2Code } from '../../../shared/index.ts'

// The optional peers as a project without them sees them: the import is
// Node's (vitest's) own, of a package name nothing installs, so the error is
// the real module-not-found one.
const MISSING = 'a2-aws-test-package-that-is-not-installed'

/** Imports by name, with `missing` resolving to a package that does not exist until `installed`. */
function importWithout(missing: string): { installed: boolean; importModule: ImportModule } {
  const seam = {
    installed: false,
    importModule: (name: string) => import(name === missing && !seam.installed ? MISSING : name),
  }
  return seam
}

describe('HARNESS_UNAVAILABLE: a harness whose package is not installed', () => {
  it("Given Pi's AI package missing, When a Pi step loads Pi, Then it fails with HARNESS_UNAVAILABLE naming what to install, and loads once it is installed", async () => {
    const seam = importWithout('@mariozechner/pi-ai')
    const load = piLoader(seam.importModule)
    const failure = await load().then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(hasA2Code(failure, 'HARNESS_UNAVAILABLE')).toBe(true)
    expect(failure).toMatchObject({
      name: 'HarnessUnavailableError',
      harnessType: 'pi',
      packageName: '@mariozechner/pi-agent-core',
      message:
        'The pi harness needs @mariozechner/pi-agent-core: npm install @mariozechner/pi-agent-core',
    })
    expect((failure as Error).cause).toMatchObject({ code: 'ERR_MODULE_NOT_FOUND' })
    seam.installed = true
    const pi = await load()
    expect(typeof pi.core.runAgentLoop).toBe('function')
    expect(typeof pi.ai.validateToolArguments).toBe('function')
  })

  it('Given the ACP SDK missing, When an FX step loads it, Then it fails with HARNESS_UNAVAILABLE, and loads once it is installed', async () => {
    const seam = importWithout('@agentclientprotocol/sdk')
    const load = acpLoader(seam.importModule)
    await expect(load()).rejects.toMatchObject({
      code: 'HARNESS_UNAVAILABLE',
      harnessType: 'fx',
      message:
        'The fx harness needs @agentclientprotocol/sdk: npm install @agentclientprotocol/sdk',
    })
    seam.installed = true
    expect(typeof (await load()).ndJsonStream).toBe('function')
  })

  it('Given a package that fails for another reason, When it loads, Then that error is the one thrown, not HARNESS_UNAVAILABLE', async () => {
    const broken = new Error('SyntaxError in the package')
    const load = piLoader(async () => {
      throw broken
    })
    await expect(load()).rejects.toBe(broken)
  })

  it('Given a Lambda function, When a package is missing, Then the message names what the deployment must say', () => {
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'Support-GenerationFunction')
    try {
      expect(new HarnessUnavailableError('pi', '@mariozechner/pi-agent-core').message).toBe(
        "The pi harness needs @mariozechner/pi-agent-core: npm install @mariozechner/pi-agent-core (in a function the A2Agent construct deployed, set its harness: 'pi' prop, which installs it beside the bundle)",
      )
      expect(new HarnessUnavailableError('fx', '@agentclientprotocol/sdk').message).toContain(
        'the FX harness does not run in a Lambda function',
      )
    } finally {
      vi.unstubAllEnvs()
    }
  })
})
