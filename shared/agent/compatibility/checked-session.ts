import type { ToolSet } from 'ai'
import type { ContractEvents } from '../../log/contract.ts'
import type { StoredEvent } from '../../log/event.ts'
import type { ExportedSnapshot } from '../../log/session-export.ts'

/** A reducer snapshot as a store keeps it, with the reducer's name (the snapshot identity). */
export type NamedSnapshot = ExportedSnapshot

/** A stored session to check: its events, in index order, and any stored snapshots. */
export interface CheckedSession {
  sessionId: string
  events: readonly StoredEvent[]
  /**
   * Snapshots the store holds (an export's, or the table's for the
   * reducer's name): a snapshot of a reducer of the new code's name is
   * compared with its fold of the events to the snapshot's index.
   */
  snapshots?: readonly NamedSnapshot[]
  /** Where the session was read from (a file, a table), for the report. */
  source?: string
}

/**
 * What the check reads of an agent: its tools and its contract (events,
 * reducer), as `agent()` keeps them in `options`. Any agent's: the
 * contract's own event and state types are the app's, and the check reads
 * the events as stored.
 */
export interface CheckedAgent {
  readonly options: {
    readonly tools?: ToolSet
    readonly contract?: CheckedContract
  }
}

/** A contract as the check reads it, whatever its event and state types. */
export interface CheckedContract {
  readonly name: string
  readonly events: ContractEvents
  readonly reducer?: {
    readonly name: string
    readonly initialState: unknown
    // A method, so a reducer of any app's state and events is one.
    fold(state: never, event: never): unknown
  }
  declares(type: string): boolean
}
