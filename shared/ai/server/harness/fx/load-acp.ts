import { HarnessUnavailableError } from '../harness-errors.ts'

type Acp = typeof import('@agentclientprotocol/sdk')

const ACP_PACKAGE = '@agentclientprotocol/sdk'

let loaded: Promise<Acp> | undefined

/**
 * The ACP SDK, loaded on the first FX step (an optional peer: an agent on
 * another loop never loads it). Named through a variable, so a bundler (the
 * A2Agent construct's esbuild) leaves it to Node instead of failing when it
 * is not installed.
 */
export function loadAcp(): Promise<Acp> {
  loaded ??= (async () => {
    try {
      const name = ACP_PACKAGE
      return (await import(name)) as Acp
    } catch (error) {
      loaded = undefined
      if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') throw error
      throw new HarnessUnavailableError('fx', ACP_PACKAGE, { cause: error })
    }
  })()
  return loaded
}
