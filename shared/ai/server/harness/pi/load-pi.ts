import { HarnessUnavailableError } from '../harness-errors.ts'

type Pi = {
  core: typeof import('@mariozechner/pi-agent-core')
  ai: typeof import('@mariozechner/pi-ai')
}

const PI_PACKAGES = ['@mariozechner/pi-agent-core', '@mariozechner/pi-ai']

let loaded: Promise<Pi> | undefined

/**
 * Pi's packages, loaded on the first Pi step (optional peers: an agent on
 * another loop never loads them, and a bundler leaves them out when they
 * are not installed, since the import sits in a `try`).
 */
export function loadPi(): Promise<Pi> {
  loaded ??= (async () => {
    try {
      // Named through a variable, so a bundler (the A2Agent construct's
      // esbuild) leaves them to Node: bundled, Pi's AI package would bring
      // every provider SDK it supports into every agent's function.
      const names = PI_PACKAGES
      const [core, ai] = (await Promise.all(names.map((name) => import(name)))) as [
        Pi['core'],
        Pi['ai'],
      ]
      return { core, ai }
    } catch (error) {
      loaded = undefined
      if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') throw error
      throw new HarnessUnavailableError('pi', '@mariozechner/pi-agent-core', { cause: error })
    }
  })()
  return loaded
}
