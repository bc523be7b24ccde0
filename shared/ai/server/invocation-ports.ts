import { hasA2Code } from '../../log/error-brand.ts'
import type { EventInput, StoredEvent } from '../../log/event.ts'
import { type EventLogOptions, eventLog, type SessionAppendOptions } from '../../log/event-log.ts'
import type { EventStore } from '../../log/event-store.ts'
import { exportSession } from '../../log/session-export.ts'
import type { Scheduler } from '../../runtime/scheduler.ts'
import type { WakeUp } from '../../runtime/wake-up.ts'
import type { SessionState } from '../state/session-state.ts'
import type { AgentConfig } from './agent-config.ts'
import { eraseAgentSession } from './erase-agent-session.ts'
import type { Invocation, LanePorts } from './lanes/lane-ports.ts'
import { storeClaims } from './lanes/lane-ports.ts'
import type { LocalWork } from './lanes/local-work.ts'
import { meteredStore } from './metered-store.ts'
import { agentSession, type SessionPorts, type SessionTimers } from './session-api.ts'
import type { StateCache } from './state-cache.ts'
import { timerLogOf } from './timer-log.ts'
import { wakeUpsFor } from './wake-ups-for.ts'

/** The agent's parts lane work runs on, whatever the invocation. */
export interface AgentParts {
  readonly config: AgentConfig
  readonly store: EventStore
  /** What every log over the store carries (the contract, the message check, retention). */
  readonly logOptions: Omit<EventLogOptions, 'store'>
  readonly state: StateCache<SessionState>
  readonly work: LocalWork
  readonly scheduler: Scheduler
  wake(wakeUps: WakeUp[]): Promise<void>
}

/** The ports of one invocation, and the writes they share. */
export interface InvocationPorts extends LanePorts {
  /**
   * The one write path, as A2 or as trusted server code: it appends and
   * wakes the lanes the new events concern, so nothing written waits unseen.
   */
  appendAndWake(
    sessionId: string,
    events: readonly EventInput[],
    options?: SessionAppendOptions,
  ): Promise<StoredEvent[]>
  /** The invocation's log (metered): for the runtime's own reads and quiet writes. */
  readonly log: ReturnType<typeof eventLog>
}

/**
 * The ports lane work gets for one invocation: every read and write goes
 * through the store metered into the invocation's metrics, every append
 * wakes the lanes it concerns, timers are set in the session's current log,
 * and claims carry the agent's TTL.
 */
export function invocationPorts(parts: AgentParts, invocation: Invocation): InvocationPorts {
  const { config, state, work, scheduler, wake } = parts
  const store = meteredStore(parts.store, invocation.metrics)
  const log = eventLog({ store, ...parts.logOptions })

  async function appendAndWake(
    sessionId: string,
    events: readonly EventInput[],
    options: SessionAppendOptions = {},
  ): Promise<StoredEvent[]> {
    const stored = await appendOrFindLanded(sessionId, events, options)
    await wake(wakeUpsFor(stored, config))
    return stored
  }

  /**
   * An unguarded append (`guardIds: false`) whose earlier try committed with
   * its answer lost (the SDK sent it again, say) conflicts at its own index,
   * where its events now are. Their IDs are nobody else's, so they are this
   * caller's: answered as appended, and their lanes woken, as a guarded
   * append's replay would be. Without the wake, a decision that landed
   * unanswered would wait for a lane nobody wakes (the stream router, where
   * there is one, sends it seconds later).
   */
  async function appendOrFindLanded(
    sessionId: string,
    events: readonly EventInput[],
    options: SessionAppendOptions,
  ): Promise<StoredEvent[]> {
    const session = log.session(sessionId)
    try {
      return await session.append(events, options)
    } catch (error) {
      const { guardIds, expectedIndex } = options
      if (guardIds !== false || expectedIndex === undefined) throw error
      if (!hasA2Code(error, 'APPEND_CONFLICT')) throw error
      const there = await session.read({ after: expectedIndex, limit: events.length })
      const landed =
        there.length === events.length &&
        there.every((event, position) => event.id === events[position]?.id)
      if (!landed) throw error
      return there
    }
  }

  const timers: SessionTimers = {
    async schedule(timer) {
      // A timer set in a log fires only into that log, never into an erased one.
      const setIn = await timerLogOf(store, timer.sessionId)
      await scheduler.schedule({ ...timer, ...(setIn ? { setIn } : {}) })
    },
  }

  const sessionPorts: SessionPorts = {
    now: config.now,
    state,
    fold: (sessionId, reducer) => log.session(sessionId).state(reducer),
    append: (sessionId, events) => appendAndWake(sessionId, events),
    erase: (sessionId, options) =>
      eraseAgentSession({ store: parts.store, scheduler, state, work }, sessionId, options),
    export: (sessionId) => exportSession(store, sessionId),
    timers,
  }

  return {
    config,
    invocation,
    log,
    appendAndWake,
    state,
    read: (sessionId, range) => log.session(sessionId).read(range),
    append: (sessionId, events, options) =>
      appendAndWake(sessionId, events, { ...options, author: 'a2' }),
    claims: storeClaims(store, config.claimTtlMs),
    cursors: {
      read: (sessionId, name) => store.readCursor(sessionId, name),
      async move(sessionId, name, { from, to }, fence) {
        await store.append(sessionId, [], {
          cursor: { name, from, to },
          ...(fence ? { fence } : {}),
        })
      },
    },
    timers,
    wake,
    work,
    session: (sessionId, origin) => agentSession(sessionPorts, sessionId, origin),
  }
}
