import type { TelemetryOptions, UIMessage } from 'ai'
import type { EventInput, StoredEvent } from '../../../log/event.ts'
import type { EventLog, SessionLog } from '../../../log/event-log.ts'
import type { EventStore } from '../../../log/event-store.ts'
import type { StateSnapshot } from '../../../log/reducer.ts'
import type { Scheduler } from '../../../runtime/scheduler.ts'
import type { WakeUp } from '../../../runtime/wake-up.ts'
import type { AIEventInput } from '../../events/ai-events.ts'
import type { SessionState } from '../../state/session-state.ts'
import type { AgentConfig } from '../agent-config.ts'
import type { AgentMetrics } from '../agent-metrics.ts'
import type { AgentEraseReceipt, EraseOptions } from '../erase-agent-session.ts'
import type { LocalWork } from './local-work.ts'

export type { SessionState } from '../../state/session-state.ts'

type AppendOptions = Parameters<SessionLog['append']>[1]

/**
 * What every lane worker runs with: the agent's resolved configuration, its
 * I/O (the log and its store, timers, wake-ups), the folded state of a
 * session, and the work this process runs. Every append here wakes the lanes
 * its events concern, so nothing a worker writes can wait unseen, and is
 * recorded in the run's metrics. A run may bring its own metrics and
 * telemetry (the Lambda pipeline does, per invocation).
 */
export interface LaneContext {
  readonly config: AgentConfig
  readonly log: EventLog
  readonly store: EventStore
  readonly scheduler: Scheduler
  /** The session's folded state at the log's end (cached per session). */
  state(sessionId: string): Promise<StateSnapshot<SessionState>>
  /** Appends as A2 (reserved IDs allowed) and wakes the lanes the new events concern. */
  appendAsA2(
    sessionId: string,
    events: readonly AIEventInput<UIMessage>[],
    options?: AppendOptions,
  ): Promise<StoredEvent[]>
  /** A trusted server append (tools, handlers, `agent.session()`), which wakes lanes too. */
  append(sessionId: string, events: readonly EventInput[]): Promise<StoredEvent[]>
  wake(wakeUps: WakeUp[]): Promise<void>
  readonly work: LocalWork
  /** Where this run's figures go; its appends are metered into it already. */
  readonly metrics: AgentMetrics
  /** The AI SDK telemetry of this run's model calls. */
  readonly telemetry: TelemetryOptions
  /** Erases the session (see `eraseAgentSession`), cached state included. */
  erase(sessionId: string, options?: EraseOptions): Promise<AgentEraseReceipt>
}
