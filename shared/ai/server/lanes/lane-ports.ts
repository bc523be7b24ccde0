import type { TelemetryOptions, UIMessage } from 'ai'
import { hasA2Code } from '../../../log/error-brand.ts'
import type { StoredEvent } from '../../../log/event.ts'
import type { AppendOptions, Claim, EventStore } from '../../../log/event-store.ts'
import type { StateSnapshot } from '../../../log/reducer.ts'
import type { RunOutcome, WakeUp } from '../../../runtime/wake-up.ts'
import type { AIEventInput } from '../../events/ai-events.ts'
import type { SessionState } from '../../state/session-state.ts'
import type { AgentConfig } from '../agent-config.ts'
import type { AgentMetrics } from '../agent-metrics.ts'
import type { AgentSession, SessionTimers, TimerOrigin } from '../session-api.ts'
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

/** How an A2 append lands: at an index, under a claim's fence, with or without ID guards. */
interface LaneAppendOptions {
  expectedIndex?: number
  fence?: Fence
  /**
   * Off for a step's events after its opening, a tool call's results
   * (at-index-writer.ts) and the controller's decisions (admission-lane.ts):
   * appends at an expected index whose writers read again on a conflict.
   */
  guardIds?: boolean
  /** A step's streamed progress (`AppendOptions.progress`): the generation lane only. */
  progress?: boolean
}

/** Work held by a live attempt elsewhere until its claim expires. */
export type Held = Extract<RunOutcome, { kind: 'held' }>

/** The claims lane work runs under (the store's, with the agent's TTL). */
export interface Claims {
  /**
   * Takes the work's claim, or says until when a live attempt elsewhere
   * holds it: a lane returns that as its run's outcome, not as a failure.
   */
  take(sessionId: string, key: string): Promise<Claim | Held>
  renew(sessionId: string, claim: Claim): Promise<Claim>
  read(sessionId: string, key: string): Promise<Claim | undefined>
  /** Gives a claim back after A2's own failure, so a retry may run the work. */
  release(sessionId: string, claim: Claim): Promise<void>
  /** Ends another attempt's claim (Stop, Pause now): its renewals and writes fail. */
  revoke(sessionId: string, key: string): Promise<void>
}

/** A lane's position in the log, read and moved explicitly (a write of no event). */
interface Cursors {
  read(sessionId: string, name: string): Promise<number>
  move(
    sessionId: string,
    name: string,
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
    options?: LaneAppendOptions,
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

export type AdmissionPorts = Pick<
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
    async take(sessionId, key) {
      try {
        return await store.claim(sessionId, key, { ttlMs })
      } catch (error) {
        if (!hasA2Code(error, 'CLAIM_HELD')) throw error
        // Known by its code, not its class (the store may be another copy of
        // a2-aws's): a CLAIM_HELD error is a ClaimHeldError, with retryAt.
        return { kind: 'held', retryAt: (error as unknown as { retryAt: number }).retryAt }
      }
    },
    renew: (sessionId, claim) => store.renewClaim(sessionId, claim, { ttlMs }),
    read: (sessionId, key) => store.readClaim(sessionId, key),
    release: (sessionId, claim) => store.releaseClaim(sessionId, claim),
    revoke: (sessionId, key) => store.revokeClaim(sessionId, key),
  }
}

/** Whether `claims.take` found the work held. */
export const isHeld = (taken: Claim | Held): taken is Held =>
  'kind' in taken && taken.kind === 'held'
