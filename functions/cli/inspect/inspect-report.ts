import { claimKeyOfLife } from '../../../shared/log/claim-key.ts'
import type { StoredEvent } from '../../../shared/log/event.ts'
import {
  claimKeysToRead,
  type Diagnosis,
  diagnose,
} from '../../../shared/model/inspect/diagnose.ts'
import { headOf, stateAt } from '../../../shared/model/inspect/state-at.ts'
import { diffAt, type StateChange } from '../../../shared/model/inspect/state-diff.ts'
import { type TimelineLine, timeline } from '../../../shared/model/inspect/timeline.ts'
import type { AIState } from '../../../shared/model/state/ai-state.ts'
import { InspectError } from './inspect-error.ts'
import type { SessionSource } from './session-source.ts'

/** What `a2-aws inspect --json` prints. */
export interface InspectReport {
  sessionId: string
  source: string
  /** When the report was made (epoch ms): the diagnosis is as of then. */
  now: number
  head: number
  /** When the last event was stored (epoch ms). */
  lastEventAt: number
  timeline: TimelineLine[]
  /** Why the session is (not) moving, at its head. */
  diagnosis: Diagnosis
  /** `--at N`: the event at N (none at 0) and the state after it. */
  at?: { index: number; event?: StoredEvent; state: AIState }
  /** `--diff A..B`: what changed in the state. */
  diff?: { from: number; to: number; changes: StateChange[] }
}

export interface ReportOptions {
  at?: number
  diff?: { from: number; to: number }
  claimTtlMs?: number
  now: number
}

/**
 * Reads a session from `source` and builds the report: the timeline, the
 * diagnosis at the head (with the claims on the work it names), and the state
 * or diff asked for. A session with no events is a `NO_EVENTS` error, an
 * index outside the log an `IndexOutOfRangeError`.
 */
export async function inspectSession(
  source: SessionSource,
  sessionId: string,
  options: ReportOptions,
): Promise<InspectReport> {
  const events = await source.events(sessionId)
  // An unknown session looks like an empty one: say so before any index is judged.
  if (events.length === 0)
    throw new InspectError('NO_EVENTS', `session ${sessionId} has no events in ${source.name}`)
  const head = headOf(events)
  const { state } = stateAt(events, head)
  // Each claim is stored in its life of the session (claimKeyOfLife): the log's current one.
  const keys = claimKeysToRead(state)
  const life = events.at(-1)?.life
  const stored = keys.map((key) => claimKeyOfLife(key, life))
  const read = stored.length === 0 ? {} : await source.claims(sessionId, stored)
  const claims = Object.fromEntries(keys.map((key, at) => [key, read[stored[at] as string]]))
  const report: InspectReport = {
    sessionId,
    source: source.name,
    now: options.now,
    head,
    lastEventAt: events.at(-1)?.timestamp as number,
    timeline: timeline(events),
    diagnosis: diagnose(state, {
      claims,
      now: options.now,
      ...(options.claimTtlMs === undefined ? {} : { claimTtlMs: options.claimTtlMs }),
    }),
  }
  if (options.at !== undefined) {
    const snapshot = stateAt(events, options.at)
    const event = events.find((candidate) => candidate.index === options.at)
    report.at = { index: options.at, ...(event ? { event } : {}), state: snapshot.state }
  }
  if (options.diff !== undefined) {
    const { from, to } = options.diff
    report.diff = { from, to, changes: diffAt(events, from, to) }
  }
  return report
}
