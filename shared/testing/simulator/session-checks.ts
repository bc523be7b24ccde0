import type { StoredEvent } from '../../log/event.ts'
import { diagnose } from '../../model/inspect/diagnose.ts'
import type { AIState } from '../../model/state/ai-state.ts'
import type { ModelSpan } from './sim-model.ts'
import type { UserRecord } from './user.ts'
import type { ToolLedger } from './workload-agent.ts'

// The session invariants `brokenInvariants` (./invariants.ts) checks once a
// world is quiet, one concern each: every function returns what broke, each
// a sentence, in the order the report lists them.

/** Attempts of one model step or tool call beyond which work is looping (5 receives, 8 crashes at most). */
const MAX_ATTEMPTS = 13

/**
 * Queue controls did what they say: inputs moved run in the new order, a
 * steer runs before what was queued when it steered; an input sent now
 * runs (where the turns before it ended, not failed).
 */
export function brokenQueueControls(
  events: readonly StoredEvent[],
  fresh: AIState,
  user: UserRecord,
  failed: boolean,
): string[] {
  const broken: string[] = []
  const applied = new Set(
    events
      .filter((event) => event.type === 'ai.control.decided')
      .filter((event) => (event.payload as { outcome: string }).outcome === 'applied')
      .map((event) => (event.payload as { commandId: string }).commandId),
  )
  // Steering that found its turn still running (it went into the turn's steering slot).
  const steered = new Set(
    events
      .filter((event) => event.type === 'ai.control.committed')
      .filter((event) =>
        (event.payload as { changes: { op: string; afterStepOf?: string | null }[] }).changes.some(
          (change) => change.op === 'inbox.add' && typeof change.afterStepOf === 'string',
        ),
      )
      .map((event) => (event.payload as { commandId?: string }).commandId),
  )
  const ran = fresh.messages.map((message) => message.id)
  for (const order of user.orders) {
    if (!applied.has(order.commandId)) continue
    if (order.steers && !steered.has(order.commandId)) continue
    const first = ran.indexOf(order.first)
    const before = ran.indexOf(order.before)
    if (first >= 0 && before >= 0 && before < first)
      broken.push(
        `${order.first} was put before ${order.before} (${order.commandId}), but ran after it`,
      )
  }
  for (const sent of user.sentNow) {
    if (applied.has(sent.commandId) && !failed && !ran.includes(sent.inputId))
      broken.push(`${sent.inputId} was sent now (${sent.commandId}), but never ran`)
  }
  return broken
}

/** The session quiesced: nothing waits on nothing. */
export function brokenQuiescence(fresh: AIState, now: number, failed: boolean): string[] {
  const broken: string[] = []
  if (fresh.active !== null && !failed)
    broken.push(`turn ${fresh.active.turnId} is still ${fresh.active.phase}`)
  if (fresh.inbox.items.length > 0 && !failed)
    broken.push(`${fresh.inbox.items.length} inputs still queued`)
  if (fresh.pendingApprovals.length > 0 && !failed) broken.push('an approval is still pending')
  if (fresh.pendingInputs.some((input) => input.status === 'pending') && !failed)
    broken.push('an input request is still pending')
  const diagnosis = diagnose(fresh, { now })
  if (diagnosis.status === 'stuck')
    broken.push(`stuck: ${diagnosis.waits.map((wait) => wait.says).join('; ')}`)
  return broken
}

/**
 * Tools within the seeds: one key per logical call; keyed effects and
 * durable steps once; a 'report' tool at most once.
 */
export function brokenToolKeys(
  tools: ToolLedger,
  sessionId: string,
  report: readonly string[],
): string[] {
  const broken: string[] = []
  for (const [call, keys] of tools.keys) {
    const [toolName = '', session, calledId = ''] = call.split('\u0000')
    if (session !== sessionId) continue
    if (keys.size > 1)
      broken.push(`${toolName} call ${calledId} ran under ${keys.size} idempotency keys`)
    const runs = tools.runs.get(call) ?? 0
    if (report.includes(toolName) && runs > 1) {
      broken.push(`${toolName} (toolRecovery: 'report') ran ${runs} times for call ${calledId}`)
    }
  }
  // A deploy's rule: no tool runs on input its schema, as the running version has it, refuses.
  for (const { call, says } of tools.refusedInputRuns) {
    const [toolName = '', session, calledId = ''] = call.split('\u0000')
    if (session === sessionId)
      broken.push(`${toolName} call ${calledId} ran on input its schema refuses: ${says}`)
  }
  return broken
}

/** An approval-gated tool never runs without an approval, in the log's life (an erased life's approvals are gone with it). */
export function brokenApprovalGates(
  events: readonly StoredEvent[],
  tools: ToolLedger,
  sessionId: string,
  approval: readonly string[],
): string[] {
  const approved = approvalsApplied(events)
  const life = events[0]?.life
  const gated = [...tools.runs.keys()].filter((call) => {
    const [toolName = '', session, , ranIn] = call.split('\u0000')
    return approval.includes(toolName) && session === sessionId && ranIn === life
  }).length
  if (gated <= approved) return []
  return [`${approval.join(', ')} ran for ${gated} calls, but ${approved} approvals were applied`]
}

/** The app handler ran for each event it handles, under one key, its effect done. */
export function brokenHandlers(
  events: readonly StoredEvent[],
  tools: ToolLedger,
  sessionId: string,
): string[] {
  const broken: string[] = []
  for (const event of events) {
    if (event.type !== 'sim.order.placed') continue
    const keys = tools.handled.get(`${sessionId}\u0000${event.id}\u0000${event.life}`)
    if (!keys) {
      broken.push(`the handler of ${event.id} never ran`)
      continue
    }
    if (keys.size > 1) broken.push(`the handler of ${event.id} ran under ${keys.size} keys`)
    for (const key of keys) {
      if (!tools.effects.has(`shipping\u0000${sessionId}\u0000${key}`))
        broken.push(`the handler of ${event.id} never shipped its order`)
    }
  }
  return broken
}

/**
 * A response takes at most maxSteps model steps (one whose model calls a
 * tool at every step ends there, 'max-steps').
 */
export function brokenMaxSteps(events: readonly StoredEvent[], maxSteps: number): string[] {
  const broken: string[] = []
  for (const event of events) {
    if (event.type !== 'ai.generation.requested') continue
    const { step, requestId } = event.payload as { step: number; requestId: string }
    if (step > maxSteps)
      broken.push(`model step ${requestId} is step ${step}, past maxSteps ${maxSteps}`)
  }
  return broken
}

/**
 * Work that cannot be done ends, not loops: a model step, or one logical
 * tool call, is attempted a bounded number of times (the queue's receives,
 * the crashes), never again and again.
 */
export function brokenAttempts(
  events: readonly StoredEvent[],
  tools: ToolLedger,
  sessionId: string,
): string[] {
  const broken: string[] = []
  const attempts = new Map<string, number>()
  for (const event of events) {
    if (event.type !== 'ai.generation.started') continue
    const { requestId } = event.payload as { requestId?: string }
    if (requestId) attempts.set(requestId, (attempts.get(requestId) ?? 0) + 1)
  }
  for (const [requestId, times] of attempts) {
    if (times > MAX_ATTEMPTS) broken.push(`model step ${requestId} was attempted ${times} times`)
  }
  for (const [call, runs] of tools.runs) {
    const [toolName, session, calledId] = call.split('\u0000')
    if (session === sessionId && runs > MAX_ATTEMPTS)
      broken.push(`${toolName} call ${calledId} ran ${runs} times`)
  }
  return broken
}

/**
 * The session's model calls never overlap, and each ended; but for a
 * frozen process's: its claim ran out while its call stayed open, and the
 * takeover's call began beside it (nothing of the frozen one lands).
 */
export function brokenModelCalls(spans: readonly ModelSpan[], sessionId: string): string[] {
  const broken: string[] = []
  const mine = spans.filter((span) => span.sessionId === sessionId)
  for (const span of mine)
    if (span.end === undefined) broken.push(`a model call of p${span.owner} never ended`)
  const sorted = [...mine].filter((span) => !span.frozen).sort((a, b) => a.start - b.start)
  for (let i = 1; i < sorted.length; i++) {
    const before = sorted[i - 1] as ModelSpan
    const after = sorted[i] as ModelSpan
    if (before.end === undefined || after.start < before.end) {
      broken.push(
        `model calls overlapped: p${before.owner}'s (${before.how ?? 'open'}) and p${after.owner}'s`,
      )
    }
  }
  return broken
}

/**
 * A step's tool calls are recorded by one attempt of it. Once an attempt has
 * recorded a call, the call is the step's (its tool runs, its effect may
 * be done); an attempt after it that asks the model again gets new calls
 * for the same intent, and their tools run a second time (a charge, twice)
 * while the transcript shows one. A takeover that finds a recorded call
 * closes the step instead.
 */
export function brokenStepReruns(events: readonly StoredEvent[]): string[] {
  const stepOf = new Map<string, string>()
  for (const event of events) {
    if (event.type !== 'ai.generation.started') continue
    const { generationId, requestId } = event.payload as { generationId: string; requestId: string }
    stepOf.set(generationId, requestId)
  }
  const callers = new Map<string, Set<string>>()
  for (const event of events) {
    if (event.type !== 'ai.tool.called') continue
    const { generationId } = event.payload as { generationId: string }
    const step = stepOf.get(generationId)
    if (step === undefined) continue
    const attempts = callers.get(step) ?? new Set()
    attempts.add(generationId)
    callers.set(step, attempts)
  }
  return [...callers]
    .filter(([, attempts]) => attempts.size > 1)
    .map(
      ([step, attempts]) =>
        `model step ${step} recorded tool calls in ${attempts.size} attempts (${[...attempts].join(', ')}): a recorded call was asked for again`,
    )
}

/** Approvals the controller applied with `approved: true`. */
function approvalsApplied(events: readonly StoredEvent[]): number {
  const granted = new Set(
    events
      .filter((event) => event.type === 'ai.control.requested')
      .filter((event) => {
        const payload = event.payload as { action?: string; approved?: boolean }
        return payload.action === 'approval' && payload.approved === true
      })
      .map((event) => event.id),
  )
  return events.filter((event) => {
    if (event.type !== 'ai.control.decided') return false
    const payload = event.payload as { commandId: string; outcome: string }
    return payload.outcome === 'applied' && granted.has(payload.commandId)
  }).length
}
