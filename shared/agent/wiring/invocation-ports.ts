import { claimKeyOfLife } from '../../log/claim-key.ts'
import type { EventInput, StoredEvent } from '../../log/event.ts'
import { type EventLogOptions, eventLog, type SessionAppendOptions } from '../../log/event-log.ts'
import type { EventStore } from '../../log/event-store.ts'
import { exportSession } from '../../log/session-export.ts'
import type { SessionState } from '../../model/state/session-state.ts'
import type { Scheduler } from '../../runtime/scheduler.ts'
import type { WakeUp } from '../../runtime/wake-up.ts'
import type { Invocation, LanePorts } from '../lanes/lane-ports.ts'
import { storeClaims } from '../lanes/lane-ports.ts'
import type { LocalWork } from '../lanes/local-work.ts'
import { appendDecidedPush } from '../session/decided-push.ts'
import { eraseAgentSession } from '../session/erase-agent-session.ts'
import { agentSession, type SessionPorts, type SessionTimers } from '../session/session-api.ts'
import type { StateCache } from '../session/state-cache.ts'
import { timerLogOf } from '../timers/timer-log.ts'
import type { AgentConfig } from './agent-config.ts'
import { meteredStore } from './metered-store.ts'
import { RECOVER_KEY } from './recovery.ts'
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
  /**
   * Trusted server code's append (`agent.session(id)`, `ctx.session`, the
   * ingress queue): commands decided where they are written when the
   * controller can (`appendDecidedPush`), then the lanes woken. Answers with
   * the events given, as stored.
   */
  appendDeciding(
    sessionId: string,
    events: readonly EventInput[],
    life?: string,
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
    // A repeat of an append that landed (the log tried it again once its
    // answer was lost, or the caller did) is answered as a replay, by the
    // store: its lanes are woken all the same, so a committed append never
    // waits for a lane nobody woke.
    const stored = await log.session(sessionId).append(events, options)
    await wake(wakeUpsFor(stored, config))
    return stored
  }

  /**
   * `appendAndWake` for trusted server code's appends (`agent.session(id)`,
   * a tool's or handler's `ctx.session`, the ingress queue): commands are
   * decided where they are written when the controller can
   * (`appendDecidedPush`). Answers with the events given, as stored.
   */
  async function appendDeciding(
    sessionId: string,
    events: readonly EventInput[],
    life?: string,
  ): Promise<StoredEvent[]> {
    const { stored, recover } = await appendDecidedPush(
      {
        log,
        state,
        validate: (event) => parts.logOptions.contract?.validate(event) ?? event,
        controller: config.controller,
      },
      sessionId,
      events,
      life === undefined ? {} : { life },
    )
    await wake([
      ...wakeUpsFor(stored, config),
      ...(recover ? [{ sessionId, lane: 'admission' as const, key: RECOVER_KEY }] : []),
    ])
    return stored.slice(0, events.length)
  }

  const timers: SessionTimers = {
    async schedule(timer, life) {
      // A timer set in a life of the log fires only into that life, never
      // into an erased one, nor into the life that started over after it.
      const setIn = await timerLogOf(store, timer.sessionId, life)
      await scheduler.schedule({ ...timer, ...(setIn ? { setIn } : {}) })
    },
  }

  const sessionPorts: SessionPorts = {
    now: config.now,
    state,
    fold: (sessionId, reducer) => log.session(sessionId).state(reducer),
    append: appendDeciding,
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
    appendDeciding,
    state,
    read: (sessionId, range) => log.session(sessionId).read(range),
    append: (sessionId, events, { at, life, fence, progress }) =>
      appendAndWake(sessionId, events, {
        author: 'a2',
        ...(at === 'end' ? {} : { expectedIndex: at, guardIds: false }),
        ...(life === undefined ? {} : { life }),
        ...(fence ? { fence } : {}),
        ...(progress ? { progress } : {}),
      }),
    claims: storeClaims(store, config.claimTtlMs),
    cursors: {
      read: (sessionId, name, life) => store.readCursor(sessionId, claimKeyOfLife(name, life)),
      async move(sessionId, name, life, { from, to }, fence) {
        await store.append(sessionId, [], {
          cursor: { name: claimKeyOfLife(name, life), from, to },
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
