import type { StoredEvent } from '../../shared/log/event.ts'
import { diagnose } from '../../shared/model/inspect/diagnose.ts'
import { timeline } from '../../shared/model/inspect/timeline.ts'
import type { AIState } from '../../shared/model/state/ai-state.ts'
import { brokenLogInvariants } from '../../shared/testing/log-invariants.ts'
import type { SessionRun } from './driver.ts'
import type { CallSpan } from './model.ts'
import type { ToolRuns } from './soak-agent.ts'

// What must hold of every session once the soak is over, whatever the other
// sessions did: every turn ends, nothing waits on nothing, no event is lost
// or duplicated, every command has its receipt, tools ran within what the
// seeds allow, and the session's model calls never overlapped.

export interface SessionFacts {
  run: SessionRun
  events: StoredEvent[]
  state: AIState
  spans: readonly CallSpan[]
  tools: ToolRuns
}

export function brokenInvariants({ run, events, state, spans, tools }: SessionFacts): string[] {
  const broken = [...run.problems]
  const { sessionId } = run

  // The log: gapless, each ID once, everything an append returned still
  // there, every command with one receipt, every turn ended.
  broken.push(...brokenLogInvariants(events, run.appended))

  // Nothing waits on nothing.
  if (state.active !== null)
    broken.push(`turn ${state.active.turnId} is still ${state.active.phase}`)
  if (state.inbox.items.length > 0) broken.push(`${state.inbox.items.length} inputs still queued`)
  if (state.pendingApprovals.length > 0) broken.push('an approval is still pending')
  const diagnosis = diagnose(state, { now: Date.now() })
  if (diagnosis.status === 'stuck')
    broken.push(`stuck: ${diagnosis.waits.map((w) => w.says).join('; ')}`)
  if (state.deadLetters.length > 0) {
    broken.push(`dead letters: ${state.deadLetters.map((l) => `${l.lane}: ${l.error}`).join('; ')}`)
  }

  // Tools within what the seeds allow: a 'report' tool at most once per
  // call, a closing that needs approval never without one.
  for (const [key, count] of tools.runs.get('runCommand')?.get(sessionId) ?? []) {
    if (count > 1) broken.push(`runCommand (toolRecovery: 'report') ran ${count} times for ${key}`)
  }
  const closings = [...(tools.runs.get('closeTicket')?.get(sessionId)?.keys() ?? [])].length
  if (closings > run.approvalsApproved) {
    broken.push(`closeTicket ran for ${closings} calls, but ${run.approvalsApproved} were approved`)
  }

  // The session's model calls never overlap.
  const mine = spans.filter((span) => span.sessionId === sessionId)
  for (const span of mine) if (span.endedAt === undefined) broken.push('a model call never ended')
  const sorted = [...mine].sort((a, b) => a.startedAt - b.startedAt)
  for (let i = 1; i < sorted.length; i++) {
    const before = sorted[i - 1] as CallSpan
    const after = sorted[i] as CallSpan
    if (before.endedAt !== undefined && after.startedAt < before.endedAt) {
      broken.push(`model calls overlapped by ${(before.endedAt - after.startedAt).toFixed(1)} ms`)
    }
  }
  return broken
}

/** What a failure prints: the session's diagnosis and the end of its timeline. */
export function explain({ events, state }: Pick<SessionFacts, 'events' | 'state'>): string {
  const diagnosis = diagnose(state, { now: Date.now() })
  const lines = timeline(events)
    .slice(-25)
    .map((line) => `  #${line.index} ${line.author} ${line.type} ${line.summary}`)
  return [
    `  status: ${diagnosis.status} (phase ${diagnosis.phase ?? 'none'})`,
    ...diagnosis.waits.map(
      (wait) => `  ${wait.stuck ? 'STUCK' : 'waits'} on ${wait.kind}: ${wait.says}`,
    ),
    ...lines,
  ].join('\n')
}
