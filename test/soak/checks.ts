import { diagnose } from '../../shared/ai/inspect/diagnose.ts'
import { timeline } from '../../shared/ai/inspect/timeline.ts'
import type { AIState } from '../../shared/ai/state/ai-state.ts'
import type { StoredEvent } from '../../shared/log/event.ts'
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

  // The log: gapless, each ID once, everything an append returned still there.
  events.forEach((event, position) => {
    if (event.index !== position + 1)
      broken.push(`event ${event.id} is at ${event.index}, not ${position + 1}`)
  })
  const ids = new Map<string, StoredEvent>()
  for (const event of events) {
    if (ids.has(event.id)) broken.push(`event ID ${event.id} is in the log twice`)
    ids.set(event.id, event)
  }
  for (const appended of run.appended) {
    const stored = ids.get(appended.id)
    if (stored?.index !== appended.index) {
      broken.push(`appended event ${appended.id} (#${appended.index}) is lost`)
    }
  }

  // Every command has its receipt, once.
  const receipts = new Map<string, number>()
  for (const event of events) {
    if (event.type !== 'ai.control.decided') continue
    const commandId = (event.payload as { commandId: string }).commandId
    receipts.set(commandId, (receipts.get(commandId) ?? 0) + 1)
  }
  for (const event of events) {
    if (event.type !== 'ai.control.requested') continue
    const count = receipts.get(event.id) ?? 0
    if (count !== 1) broken.push(`command ${event.id} has ${count} receipts`)
  }

  // Every turn that started ended: completed (finished, handed off) or stopped.
  const started = new Set<string>()
  const ended = new Set<string>()
  for (const event of events) {
    const payload = event.payload as {
      turnId?: string
      changes?: { op: string; turnId?: string }[]
    }
    if (event.type === 'ai.message.completed' && payload.turnId) ended.add(payload.turnId)
    for (const change of payload.changes ?? []) {
      if (change.op === 'turn.start' && change.turnId) started.add(change.turnId)
      if (change.op === 'turn.stop' && change.turnId) ended.add(change.turnId)
    }
  }
  for (const turnId of started) if (!ended.has(turnId)) broken.push(`turn ${turnId} never ended`)

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
