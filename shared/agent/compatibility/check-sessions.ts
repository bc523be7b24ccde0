import type { CheckedAgent, CheckedSession } from './checked-session.ts'
import type {
  CompatibilityFinding,
  CompatibilityReport,
  SessionCompatibility,
} from './compatibility-report.ts'
import { type FoldCheck, foldCheck } from './fold-check.ts'
import { checkPendingTools } from './tool-check.ts'

/**
 * Whether a stored session survives the new code: its events upcast and
 * validated by the agent's contract, folded by its reducers (compared with
 * any stored snapshot of a reducer of the same name), and its calls that
 * have yet to run checked against its tools. Pure: it reads only what it is
 * given (`sessionFromExport()` reads an export, `storeSessions()` a store).
 *
 * @example
 * const result = await checkSessionCompatibility(assistant, sessionFromExport(jsonl))
 * expect(result.findings).toEqual([])
 */
export async function checkSessionCompatibility(
  agent: CheckedAgent,
  session: CheckedSession,
): Promise<SessionCompatibility> {
  return checkOne(agent, foldCheck(agent), session)
}

export interface CheckSessionsOptions {
  /** The new code. */
  agent: CheckedAgent
  /** The stored sessions, read one at a time (an array, or a source's iterator). */
  sessions: Iterable<CheckedSession> | AsyncIterable<CheckedSession>
}

/**
 * Checks every session and reports those that would break: `ok` when none
 * would. A source that cannot be read (a malformed export) throws, naming
 * where: the check never passes over it.
 *
 * @example
 * const report = await checkSessions({ agent: assistant, sessions: storeSessions(store, ids, assistant) })
 * if (!report.ok) console.log(formatCompatibilityReport(report))
 */
export async function checkSessions({
  agent,
  sessions,
}: CheckSessionsOptions): Promise<CompatibilityReport> {
  const check = foldCheck(agent)
  const broken: SessionCompatibility[] = []
  let count = 0
  let events = 0
  for await (const session of sessions) {
    const result = await checkOne(agent, check, session)
    count++
    events += result.events
    if (result.findings.length > 0) broken.push(result)
  }
  return { ok: broken.length === 0, sessions: count, events, broken }
}

async function checkOne(
  agent: CheckedAgent,
  check: FoldCheck,
  session: CheckedSession,
): Promise<SessionCompatibility> {
  const findings: CompatibilityFinding[] = []
  const state = check.run(session, findings)
  if (state)
    await checkPendingTools(session.sessionId, state.ai, agent.options.tools ?? {}, findings)
  return {
    sessionId: session.sessionId,
    ...(session.source === undefined ? {} : { source: session.source }),
    events: session.events.length,
    findings,
  }
}
