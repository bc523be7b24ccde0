import type { TelemetryOptions, UIMessage } from 'ai'
import { claimKeyOfLife } from '../../log/claim-key.ts'
import { hasA2Code } from '../../log/error-brand.ts'
import type { StoredEvent } from '../../log/event.ts'
import type { AppendOptions, Claim, EventStore } from '../../log/event-store.ts'
import type { StateSnapshot } from '../../log/reducer.ts'
import type { AIEventInput } from '../../model/events/ai-events.ts'
import type { SessionState } from '../../model/state/session-state.ts'
import type { RunOutcome, WakeUp } from '../../runtime/wake-up.ts'
import type { AgentSession, SessionTimers, TimerOrigin } from '../session/session-api.ts'
import type { AgentConfig } from '../wiring/agent-config.ts'
import type { AgentMetrics } from '../wiring/agent-metrics.ts'
import type { LocalWork } from './local-work.ts'

/** A claim's fence: writes land only while its attempt is the claim's latest. */
export type Fence = NonNullable<AppendOptions['fence']>

/**
 * One run of lane work as whoever runs it sets it up (the embedded
 * dispatcher, a Lambda invocation, the crash kit): where its figures go and
 * how its model calls are traced. Made once per run, at the edge, and handed
 * down as a value; the ports below meter their I/O into its `metrics`.
 */
export interface Invocation {
  readonly metrics: AgentMetrics
  readonly telemetry: TelemetryOptions
}

/**
 * Where an A2 append lands: in the session's life the work read, either at
 * the index it read the log at or at the end, under a claim's fence or not.
 */
interface LaneAppendOptions {
  /**
   * `'end'`: after whatever the log holds now, with ID guards (a step's
   * opening, a durable step's result, a timer's events): a repeat is a
   * replay by its IDs. An index: exactly there, without ID guards (a
   * step's later events, a tool's result, the controller's decisions),
   * since their IDs are derived from the work and the index stands in for
   * the guards: a repeat finds its own events there and is a replay, and
   * another writer's events there are `APPEND_CONFLICT`, after which the
   * writer reads again.
   */
  at: number | 'end'
  /**
   * The life of the state the work read (`StateSnapshot.life`): the append
   * lands only in it, `LIFE_ENDED` once the session was erased or expired
   * since (the work is then over). Undefined: the work read an empty log.
   */
  life: string | undefined
  fence?: Fence
  /** A step's streamed progress (`AppendOptions.progress`): the generation lane only. */
  progress?: boolean
}

/** Work held by a live attempt elsewhere until its claim expires. */
export type Held = Extract<RunOutcome, { kind: 'held' }>

/**
 * The claims lane work runs under (the store's, with the agent's TTL), each
 * of one life of its session: `key` is the work's (the controller's claim
 * keys), and the claim is stored under it in `life` (`claimKeyOfLife`),
 * which a taken `Claim`'s `key` and its fences name.
 */
export interface Claims {
  /**
   * Takes the work's claim, or says until when a live attempt elsewhere
   * holds it: a lane returns that as its run's outcome, not as a failure.
   */
  take(sessionId: string, key: string, life: string | undefined): Promise<Claim | Held>
  renew(sessionId: string, claim: Claim): Promise<Claim>
  read(sessionId: string, key: string, life: string | undefined): Promise<Claim | undefined>
  /** Gives a claim back after A2's own failure, so a retry may run the work. */
  release(sessionId: string, claim: Claim): Promise<void>
  /** Ends another attempt's claim (Stop, Pause now): its renewals and writes fail. */
  revoke(sessionId: string, key: string, life: string | undefined): Promise<void>
}

/**
 * A lane's position in one life of the session's log, read and moved
 * explicitly (a write of no event): stored under its name in that life
 * (`claimKeyOfLife`'s rule), so a process of an ended life moves only its
 * own life's cursor, never the new life's.
 */
interface Cursors {
  read(sessionId: string, name: string, life: string | undefined): Promise<number>
  move(
    sessionId: string,
    name: string,
    life: string | undefined,
    move: { from: number; to: number },
    fence?: Fence,
  ): Promise<void>
}

/**
 * Every capability lane work may be given; each lane takes the part it uses
 * (the `...Ports` below), so what a lane can do is in its signature.
 *
 * There is one write: `append`, which records A2's events and wakes the
 * lanes they concern, so nothing a worker writes waits unseen. A cursor
 * moves only through `cursors.move`. Reads and writes are metered into the
 * invocation's metrics.
 */
export interface LanePorts {
  readonly config: AgentConfig
  readonly invocation: Invocation
  /** The session's folded state at the log's end (cached per session). */
  state(sessionId: string): Promise<StateSnapshot<SessionState>>
  /** The session's stored events after `after` (default: from the start). */
  read(sessionId: string, range?: { after?: number; limit?: number }): Promise<StoredEvent[]>
  /** Appends A2's events (reserved IDs allowed) and wakes the lanes they concern. */
  append(
    sessionId: string,
    events: readonly AIEventInput<UIMessage>[],
    options: LaneAppendOptions,
  ): Promise<StoredEvent[]>
  readonly claims: Claims
  readonly cursors: Cursors
  readonly timers: SessionTimers
  wake(wakeUps: WakeUp[]): Promise<void>
  /** The work this process runs, so a local Stop or erase aborts it at once. */
  readonly work: LocalWork
  /** The session as a tool or handler sees it, its timers counted from `timers`. */
  session(sessionId: string, timers?: TimerOrigin): AgentSession
}

export type ControllerLanePorts = Pick<
  LanePorts,
  'config' | 'state' | 'append' | 'claims' | 'timers' | 'work'
>
export type GenerationPorts = Pick<
  LanePorts,
  'config' | 'invocation' | 'state' | 'read' | 'append' | 'claims' | 'work'
>
export type ToolsPorts = Pick<
  LanePorts,
  'config' | 'state' | 'read' | 'append' | 'claims' | 'work' | 'wake' | 'session'
>
export type HandlersPorts = Pick<
  LanePorts,
  'config' | 'state' | 'read' | 'append' | 'claims' | 'cursors' | 'work' | 'session'
>
export type MetadataPorts = Pick<LanePorts, 'config' | 'state' | 'append'>

/** Claimed work: its claim kept alive, a local abort, the claim given back on A2's failure. */
export type ClaimedWorkPorts = Pick<LanePorts, 'config' | 'claims' | 'work'>

/** The store's claims with the agent's TTL, and a held claim as an outcome. */
export function storeClaims(
  store: Pick<EventStore, 'claim' | 'renewClaim' | 'readClaim' | 'releaseClaim' | 'revokeClaim'>,
  ttlMs: number,
): Claims {
  return {
    async take(sessionId, key, life) {
      try {
        return await store.claim(sessionId, claimKeyOfLife(key, life), { ttlMs })
      } catch (error) {
        // Known by its code, not its class (the store may be another copy of
        // a2-aws's), and the code's details say when to look again.
        if (!hasA2Code(error, 'CLAIM_HELD')) throw error
        return { kind: 'held', retryAt: error.details.retryAt }
      }
    },
    renew: (sessionId, claim) => store.renewClaim(sessionId, claim, { ttlMs }),
    read: (sessionId, key, life) => store.readClaim(sessionId, claimKeyOfLife(key, life)),
    release: (sessionId, claim) => store.releaseClaim(sessionId, claim),
    revoke: (sessionId, key, life) => store.revokeClaim(sessionId, claimKeyOfLife(key, life)),
  }
}

/** Whether `claims.take` found the work held. */
export const isHeld = (taken: Claim | Held): taken is Held =>
  'kind' in taken && taken.kind === 'held'
