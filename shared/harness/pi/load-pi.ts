import { HarnessUnavailableError } from '../../agent/harness/harness-errors.ts'

type Pi = {
  core: typeof import('@mariozechner/pi-agent-core')
  ai: typeof import('@mariozechner/pi-ai')
}

const PI_PACKAGES = ['@mariozechner/pi-agent-core', '@mariozechner/pi-ai']

/** How a package is loaded by name: Node's `import()`, or a test's. */
export type ImportModule = (name: string) => Promise<unknown>

/**
 * A loader of Pi's packages through `importModule`, loading them once; a
 * failed load (not installed: `HARNESS_UNAVAILABLE`) is tried again on the
 * next call, so `retry()` works once they are installed.
 * @internal Exported for its test (knip --production).
 */
export function piLoader(importModule: ImportModule): () => Promise<Pi> {
  let loaded: Promise<Pi> | undefined
  return () => {
    loaded ??= (async () => {
      try {
        const [core, ai] = (await Promise.all(PI_PACKAGES.map(importModule))) as [
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
}

/**
 * Pi's packages, loaded on the first Pi step (optional peers: an agent on
 * another loop never loads them). Named through a variable, so a bundler
 * (the A2Agent construct's esbuild) leaves them to Node: bundled, Pi's AI
 * package would bring every provider SDK it supports into every agent's
 * function.
 */
export const loadPi: () => Promise<Pi> = piLoader((name) => import(name))
