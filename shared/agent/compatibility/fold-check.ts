import {
  type Contract,
  type ContractEvents,
  contract as declareContract,
} from '../../log/contract.ts'
import { InvalidEventError } from '../../log/errors.ts'
import type { StoredEvent } from '../../log/event.ts'
import { messageOf } from '../../log/message-of.ts'
import { upcastEvent } from '../../log/upcast.ts'
import { AI_EVENTS } from '../../model/events/ai-events.ts'
import { diffStates } from '../../model/inspect/state-diff.ts'
import { type SessionState, sessionReducer } from '../../model/state/session-state.ts'
import type { CheckedAgent, CheckedSession, NamedSnapshot } from './checked-session.ts'
import type { CompatibilityFinding } from './compatibility-report.ts'
import { jsonSafetyIssue } from './json-safety.ts'

/** The new code's view of a log: its upcasters, its schemas and its reducers. */
export interface FoldCheck {
  /** Folds a session, collecting what the new code refuses; its state, unless the fold threw. */
  run(session: CheckedSession, findings: CompatibilityFinding[]): SessionState | undefined
}

/**
 * Prepares the fold check of an agent once, for every session: the contract
 * the log validates appends with (the app's events beside the AI
 * protocol's, as `agent()` declares them), which upcasts both, and the
 * session reducer. `upcast` is the log's (a test's stands in for a failing
 * one).
 */
export function foldCheck(
  agent: CheckedAgent,
  upcast: typeof upcastEvent = upcastEvent,
): FoldCheck {
  const app = agent.options.contract as Contract | undefined
  const declared: Contract = declareContract({
    name: app?.name ?? 'a2-aws.check',
    events: { ...(app?.events ?? {}), ...AI_EVENTS } as ContractEvents,
  })
  const reducer = sessionReducer(app)
  const appReducer = app?.reducer
  return {
    run(session, findings) {
      const { sessionId } = session
      // The snapshots the new reducers would trust: those of their names.
      const due = new Map<number, NamedSnapshot[]>()
      for (const snapshot of session.snapshots ?? []) {
        if (snapshot.reducer !== reducer.name && snapshot.reducer !== appReducer?.name) continue
        due.set(snapshot.index, [...(due.get(snapshot.index) ?? []), snapshot])
      }
      let state = reducer.initialState
      for (const stored of session.events) {
        let event: StoredEvent
        try {
          event = upcast(declared, stored)
        } catch (error) {
          findings.push({
            kind: 'upcast-failed',
            sessionId,
            index: stored.index,
            type: stored.type,
            message: `the contract's upcasters fail on event ${stored.index} (${stored.type}): ${messageOf(error)}; the session cannot be read until they read it`,
          })
          return undefined
        }
        const refusal = refusalOf(declared, event)
        if (refusal) findings.push({ kind: 'event-refused', sessionId, ...refusal })
        try {
          state = reducer.fold(state, event)
        } catch (error) {
          findings.push({
            kind: 'reducer-threw',
            sessionId,
            index: event.index,
            type: event.type,
            message: `the reducer ${reducer.name} threw folding event ${event.index} (${event.type}): ${messageOf(error)}; the session cannot be read until it folds`,
          })
          return undefined
        }
        for (const snapshot of due.get(event.index) ?? []) {
          const folded = snapshot.reducer === reducer.name ? state : state.app
          const change = firstChange(snapshot.state, folded)
          if (change === undefined) continue
          findings.push({
            kind: 'reducer-changed',
            sessionId,
            index: event.index,
            path: change,
            message: `the stored snapshot of reducer ${snapshot.reducer} at event ${event.index} differs from the new reducer's fold at ${change || 'the root'}: the reducer changed meaning under the same name, and the stored snapshots would be trusted; rename the reducer (e.g. a new version suffix) so they are refolded`,
          })
        }
      }
      const issue = appReducer ? jsonSafetyIssue(state.app, 'app') : undefined
      if (issue) {
        findings.push({
          kind: 'state-not-json',
          sessionId,
          path: issue.path,
          message: `the state of reducer ${appReducer?.name} holds ${issue.what} at ${issue.path}, which a snapshot's JSON does not keep: a session read from a snapshot would see another state`,
        })
      }
      return state
    },
  }
}

/** Why the contract refuses an event, as a finding's location and sentence. */
function refusalOf(
  declared: Contract,
  event: StoredEvent,
): Omit<CompatibilityFinding, 'kind' | 'sessionId'> | undefined {
  try {
    declared.validate(event)
    return undefined
  } catch (error) {
    if (!(error instanceof InvalidEventError)) throw error
    const at = ['payload', ...error.path].join('.')
    return {
      index: event.index,
      type: event.type,
      path: at,
      message: `event ${event.index} (${event.type}) is refused by ${
        isAIEvent(event.type)
          ? "this a2-aws version's schema of the AI protocol"
          : "the contract's current schema"
      } at ${at} (${error.issues[0]?.message ?? 'invalid'}): ${
        isAIEvent(event.type)
          ? 'a break of a2-aws itself: keep the a2-aws version that wrote it, and report it'
          : 'give the contract an upcaster from the stored shape'
      }`,
    }
  }
}

/** The AI protocol's own events: a refusal of one is no app's to upcast. */
const isAIEvent = (type: string): boolean => Object.hasOwn(AI_EVENTS, type)

/** The first path where a stored state and a new fold differ, as JSON compares them; undefined when equal. */
function firstChange(stored: unknown, folded: unknown): string | undefined {
  // What a snapshot would store of the new fold: undefined properties gone.
  let asStored: unknown
  try {
    asStored = JSON.parse(JSON.stringify(folded) ?? 'null')
  } catch {
    // Not JSON at all (a cycle, a bigint): the state-not-json finding says so.
    return undefined
  }
  return diffStates(stored, asStored)[0]?.path
}
