/**
 * What would break when the new code reads a stored session, one kind per
 * way it breaks:
 * - `upcast-failed`: the contract's upcasters fail on a stored event (none
 *   for its version, one throws, or its result fails the current schema):
 *   the log cannot read the session.
 * - `event-refused`: the contract's current schema refuses a stored event
 *   (after its upcasters): give an upcaster from the old shape.
 * - `reducer-threw`: the session's reducer (the AI reducer and the
 *   contract's) threw while folding an event.
 * - `state-not-json`: the app reducer's state would not survive the JSON a
 *   snapshot stores (a function, a `Map`, a `Date`, `NaN`, a cycle, ...).
 * - `reducer-changed`: a stored snapshot of a reducer of the same name
 *   differs from the new reducer's fold to its index: the reducer changed
 *   meaning under its name, and the old snapshots would be trusted.
 * - `tool-removed`: a recorded call that has yet to run (awaiting approval,
 *   approved, called, interrupted) names a tool the new code lacks.
 * - `tool-input-refused`: such a call's recorded input is refused by the
 *   new tool's `inputSchema`.
 */
export type CompatibilityFindingKind =
  | 'upcast-failed'
  | 'event-refused'
  | 'reducer-threw'
  | 'state-not-json'
  | 'reducer-changed'
  | 'tool-removed'
  | 'tool-input-refused'

/** One reason a session would break, located in its log where it can be. */
export interface CompatibilityFinding {
  kind: CompatibilityFindingKind
  sessionId: string
  /** The event it is about (1-based), when there is one. */
  index?: number
  /** That event's type. */
  type?: string
  /** Where inside it (the payload's path, the state's path), when known. */
  path?: string
  /** The tool call it is about. */
  toolName?: string
  toolCallId?: string
  /** One sentence: what is wrong, what will happen, what to do. */
  message: string
}

/** One session's result. */
export interface SessionCompatibility {
  sessionId: string
  /** Where it was read from (a file, a table), for the report. */
  source?: string
  /** How many events were checked. */
  events: number
  findings: CompatibilityFinding[]
}

/** The sessions checked, and those that would break. */
export interface CompatibilityReport {
  /** True when no session would break. */
  ok: boolean
  /** How many sessions were checked. */
  sessions: number
  /** How many events they held. */
  events: number
  /** The sessions with at least one finding, in the order checked. */
  broken: SessionCompatibility[]
}
