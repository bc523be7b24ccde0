import type { GenerationSettings } from '../../agent/model-step/step-context.ts'

/**
 * FX's loop, or any agent that speaks the Agent Client Protocol, as
 * `fxHarness()` takes it: A2 runs the agent's process (`command`, default
 * `fx acp`) through `@agentclientprotocol/sdk` (an optional peer: install
 * it). One ACP prompt turn is one durable generation; the agent runs its own
 * tools, reported as provider-executed calls, and its permission requests
 * wait for the user's answer in the log.
 */
export interface FxHarnessOptions {
  /** The agent's command and arguments (default `['fx', 'acp']`). */
  command?: readonly string[]
  /** The working directory of the agent's session (default: the process's). */
  cwd?: string
  /** Extra environment variables for the agent's process. */
  env?: Readonly<Record<string, string>>
  /**
   * How long a session's agent process stays up after its last turn (default
   * 5 minutes); the next turn after that starts a new ACP session and hands
   * it the conversation so far from the log.
   */
  idleMs?: number
  /** How `session/update`s become progress events (see `generation.progress`). */
  generation?: Pick<GenerationSettings, 'progress'>
}
