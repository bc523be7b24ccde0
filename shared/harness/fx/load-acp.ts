import { HarnessUnavailableError } from '../../agent/harness/harness-errors.ts'
import type { ImportModule } from '../pi/load-pi.ts'

type Acp = typeof import('@agentclientprotocol/sdk')

const ACP_PACKAGE = '@agentclientprotocol/sdk'

/**
 * A loader of the ACP SDK through `importModule`, loading it once; a failed
 * load (not installed: `HARNESS_UNAVAILABLE`) is tried again on the next call.
 * @internal Exported for its test (knip --production).
 */
export function acpLoader(importModule: ImportModule): () => Promise<Acp> {
  let loaded: Promise<Acp> | undefined
  return () => {
    loaded ??= (async () => {
      try {
        return (await importModule(ACP_PACKAGE)) as Acp
      } catch (error) {
        loaded = undefined
        if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') throw error
        throw new HarnessUnavailableError('fx', ACP_PACKAGE, { cause: error })
      }
    })()
    return loaded
  }
}

/**
 * The ACP SDK, loaded on the first FX step (an optional peer: an agent on
 * another loop never loads it). Named through a variable, so a bundler (the
 * A2Agent construct's esbuild) leaves it to Node instead of failing when it
 * is not installed.
 */
export const loadAcp: () => Promise<Acp> = acpLoader((name) => import(name))
