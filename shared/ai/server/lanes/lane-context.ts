import type { UIMessage } from 'ai'
import type { StoredEvent } from '../../../log/event.ts'
import type { EventLog, SessionLog } from '../../../log/event-log.ts'
import type { EventStore } from '../../../log/event-store.ts'
import type { Reducer, StateSnapshot } from '../../../log/reducer.ts'
import type { Scheduler } from '../../../runtime/scheduler.ts'
import type { WakeUp } from '../../../runtime/wake-up.ts'
import type { AIEventInput } from '../../events/ai-events.ts'
import type { SessionState } from '../../state/session-state.ts'
import type { AgentOptions } from '../agent-options.ts'

export type { SessionState } from '../../state/session-state.ts'

/** What every lane worker shares: the agent's configuration and its I/O. */
export interface LaneContext {
  options: AgentOptions
  agentName: string
  log: EventLog
  store: EventStore
  scheduler: Scheduler
  reducer: Reducer<SessionState, StoredEvent>
  claimTtlMs: number
  logger: Pick<Console, 'info' | 'warn' | 'error'>
  /** Appends as A2 and wakes the lanes the new events concern. */
  appendAsA2(
    sessionId: string,
    events: readonly AIEventInput<UIMessage>[],
    options?: Parameters<SessionLog['append']>[1],
  ): Promise<StoredEvent[]>
  wake(wakeUps: WakeUp[]): Promise<void>
  state(sessionId: string): Promise<StateSnapshot<SessionState>>
  /** Aborts work this process runs under `claimKey`, at once (the fence does it elsewhere). */
  abortLocal(sessionId: string, claimKey: string, reason: string): void
  registerLocal(sessionId: string, claimKey: string, controller: AbortController): () => void
}
