import type { Agent } from '../../agent/wiring/agent.ts'
import type { Authorize } from '../../http/log-endpoint.ts'
import { PipelineError } from '../errors.ts'

/** What the Lambda handlers need of an agent (what `agent()` returns). */
export type PipelineAgent = Pick<Agent, 'name' | 'fetch' | 'runtime'> & {
  readonly options: Pick<Agent['options'], 'dispatcher'>
  /** What `agent()` says it is (optional: a hand-made agent object may not say). */
  readonly version?: string
}

/**
 * Finds the agent a user's module exports (by `exportName`, default
 * `default`), with a clear error when it is missing or not an agent.
 */
export function agentFromModule(
  module: Record<string, unknown>,
  exportName = 'default',
): PipelineAgent {
  const candidate = module[exportName] as Partial<PipelineAgent> | undefined
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.fetch !== 'function' ||
    typeof candidate.runtime?.run !== 'function'
  ) {
    throw new PipelineError(
      'INVALID_AGENT_MODULE',
      `The agent module has no agent named "${exportName}" (exports: ${Object.keys(module).join(', ') || 'none'}); export the value agent() returns`,
    )
  }
  if (!candidate.options?.dispatcher) {
    throw new PipelineError(
      'INVALID_AGENT_MODULE',
      `Agent "${candidate.name}" has no dispatcher: on Lambda it needs the SQS dispatcher: build it with the parts awsAgentParts() reads from the environment`,
    )
  }
  return candidate as PipelineAgent
}

/** An optional `authorize` export of the agent module guards the HTTP API. */
export function authorizeFromModule(module: Record<string, unknown>): Authorize | undefined {
  const authorize = module.authorize
  if (authorize === undefined) return undefined
  if (typeof authorize !== 'function') {
    throw new PipelineError(
      'INVALID_AGENT_MODULE',
      'The agent module exports "authorize", but not as a function',
    )
  }
  return authorize as Authorize
}

export interface PipelineLogger {
  info(message: string, ...extra: unknown[]): void
  warn(message: string, ...extra: unknown[]): void
  error(message: string, ...extra: unknown[]): void
}
