import { type Agent, type AgentSession, agent } from '../../shared/agent/index.ts'
import type { StoredEvent } from '../../shared/log/event.ts'
import type { AIState } from '../../shared/model/state/ai-state.ts'
import { soakAgentOptions, type ToolRuns } from './soak-agent.ts'

/** Where a soak's sessions run, as its users see them. */
export interface SoakTarget {
  session(sessionId: string): Pick<AgentSession<AIState>, 'append' | 'state'>
  /** The session's log, as stored. */
  read(sessionId: string): Promise<StoredEvent[]>
  /** Waits until the work the sessions left (a late timer, a redelivery) is done. */
  settle(): Promise<void>
  /** What the target did besides serving (kills, redeliveries), for the report. */
  figures(): Record<string, number>
  close(): Promise<void>
}

/** What a quiet soak agent logs: failures only, as they are the soak's business. */
const logger = { info() {}, warn() {}, error: (line: string) => console.error(line) }

/** What a target builds its agent with. */
export interface TargetContext {
  tools: ToolRuns
  /** The Gateway double's model catalog. */
  catalogUrl: string
}

/** The embedded default: the in-memory store, in-process dispatch and timers. */
export function embedded({ tools, catalogUrl }: TargetContext): Promise<SoakTarget> {
  const soak: Agent = agent({
    ...soakAgentOptions(tools),
    logger,
    modelCatalog: { url: catalogUrl },
  }) as unknown as Agent
  return Promise.resolve(targetOf(soak, () => soak.runtime.close()))
}

function targetOf(soak: Agent, close: () => void | Promise<void>): SoakTarget {
  return {
    session: (sessionId) => soak.session(sessionId) as never,
    read: (sessionId) => soak.runtime.log.session(sessionId).read(),
    settle: () => soak.runtime.idle(),
    figures: () => ({}),
    close: async () => close(),
  }
}
