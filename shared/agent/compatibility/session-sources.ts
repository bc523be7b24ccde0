import { InvalidExportError } from '../../log/errors.ts'
import type { EventStore } from '../../log/event-store.ts'
import { parseSessionExport } from '../../log/session-export.ts'
import { type ContractLike, sessionReducer } from '../../model/state/session-state.ts'
import type { CheckedAgent, CheckedSession, NamedSnapshot } from './checked-session.ts'

/**
 * A session to check from an export (`a2-aws export`, `session.export()`),
 * its snapshots with it. A malformed or truncated export throws
 * `InvalidExportError` (`INVALID_EXPORT`) naming the line, and `source`
 * when given (the file): never a session that passes.
 *
 * @example
 * const session = sessionFromExport(await readFile('sessions/s1.jsonl', 'utf8'), 'sessions/s1.jsonl')
 */
export function sessionFromExport(jsonl: string, source?: string): CheckedSession {
  try {
    const { sessionId, events, snapshots } = parseSessionExport(jsonl)
    return { sessionId, events, snapshots, ...(source === undefined ? {} : { source }) }
  } catch (error) {
    if (source !== undefined && error instanceof InvalidExportError && error.file === undefined) {
      throw new InvalidExportError(error.line, error.reason, source)
    }
    throw error
  }
}

/**
 * The sessions of a store to check, read one at a time: each one's events,
 * and the stored snapshots of the agent's reducers (the session reducer's
 * name, which joins the AI reducer's and the contract's), so a reducer
 * that changed meaning under its name is found.
 *
 * @example
 * const report = await checkSessions({ agent, sessions: storeSessions(store, ['s1', 's2'], agent) })
 */
export async function* storeSessions(
  store: EventStore,
  sessionIds: Iterable<string> | AsyncIterable<string>,
  agent: CheckedAgent,
  source?: string,
): AsyncIterable<CheckedSession> {
  const reducer = sessionReducer(agent.options.contract as ContractLike | undefined).name
  for await (const sessionId of sessionIds) {
    const [events, snapshot] = await Promise.all([
      store.read(sessionId),
      store.readSnapshot(sessionId, reducer),
    ])
    const snapshots: NamedSnapshot[] = []
    // Trusted by the new code only where it is of the events' life, as the log trusts one.
    const at = snapshot && snapshot.index > 0 ? events[snapshot.index - 1] : undefined
    if (snapshot && at && (snapshot.life === undefined || snapshot.life === at.life)) {
      snapshots.push({ reducer, index: snapshot.index, state: snapshot.state })
    }
    yield { sessionId, events, snapshots, ...(source === undefined ? {} : { source }) }
  }
}
