import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { CheckedAgent } from '../../../shared/agent/compatibility/checked-session.ts'

/** Why the agent module cannot be checked with: a sentence for stderr (exit 2). */
export class AgentModuleError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'AgentModuleError'
  }
}

/** What `agent()` returns, as far as the check can tell: options, a name, a runtime. */
const isAgent = (value: unknown): value is CheckedAgent & { runtime?: { close?(): void } } =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { options?: unknown }).options === 'object' &&
  typeof (value as { name?: unknown }).name === 'string' &&
  typeof (value as { session?: unknown }).session === 'function'

/**
 * The user's agent, from their module: the named export, or the default
 * one, or the only agent it exports. Loading runs the module, as a deploy
 * would: a module that throws is reported, not checked.
 */
export async function loadAgent(
  module: string,
  exportName: string | undefined,
  cwd: string = process.cwd(),
): Promise<CheckedAgent & { runtime?: { close?(): void } }> {
  let loaded: Record<string, unknown>
  try {
    loaded = (await import(pathToFileURL(resolve(cwd, module)).href)) as Record<string, unknown>
  } catch (error) {
    throw new AgentModuleError(`cannot load ${module}: ${(error as Error).message}`, {
      cause: error,
    })
  }
  if (exportName !== undefined) {
    const named = loaded[exportName]
    if (isAgent(named)) return named
    throw new AgentModuleError(
      named === undefined
        ? `${module} has no export ${exportName}`
        : `${module}'s export ${exportName} is not an agent()`,
    )
  }
  if (isAgent(loaded.default)) return loaded.default
  const agents = Object.entries(loaded).filter(([, value]) => isAgent(value))
  const [only] = agents
  if (agents.length === 1 && only) return only[1] as CheckedAgent
  throw new AgentModuleError(
    agents.length === 0
      ? `${module} exports no agent(): export it (default, or by name with #name)`
      : `${module} exports several agents (${agents.map(([name]) => name).join(', ')}): pick one with --agent ${module}#<name>`,
  )
}
