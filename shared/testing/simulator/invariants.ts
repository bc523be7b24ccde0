import { isDeepStrictEqual } from 'node:util'
import type { StoredEvent } from '../../log/event.ts'
import type { StoredSnapshot } from '../../log/event-store.ts'
import { diagnose } from '../../model/inspect/diagnose.ts'
import { timeline } from '../../model/inspect/timeline.ts'
import type { AIState } from '../../model/state/ai-state.ts'
import { brokenLogInvariants } from '../log-invariants.ts'
import type { BrowserRecord } from './browser.ts'
import { brokenContent, brokenEffects } from './intent-oracle.ts'
import type { ModelSpan } from './sim-model.ts'
import type { UserRecord } from './user.ts'
import { type ToolLedger, WORKLOAD_MAX_STEPS } from './workload-agent.ts'

/** Attempts of one model step or tool call beyond which work is looping (5 receives, 8 crashes at most). */
const MAX_ATTEMPTS = 13

/** What the checks of one session look at, once its world is quiet. */
export interface SessionFacts {
  sessionId: string
  events: StoredEvent[]
  /** The state a fold of the whole log from nothing gives. */
  fresh: AIState
  /** Each live process's state of the session (its caches), by process. */
  processStates: { owner: number; state: AIState }[]
  /** The stored reducer snapshot, and a fresh fold of the log up to its index. */
  snapshot?: { stored: StoredSnapshot; fold: unknown }
  /** Every event an append returned to its caller. */
  returned: readonly { id: string; index: number }[]
  spans: readonly ModelSpan[]
  tools: ToolLedger
  user: UserRecord
  now: number
  /**
   * The agent's tool rules (default: the workload agent's): tools under
   * `toolRecovery: 'report'`, tools that need approval, and whether its
   * effect services (charge, email) are the workload's.
   */
  policies?: {
    report: readonly string[]
    approval: readonly string[]
    workload: boolean
    /** Model steps per response, at most (the workload's `WORKLOAD_MAX_STEPS`). */
    maxSteps?: number
  }
  /** What your effect ledgers saw broken (see `EffectRuns`). */
  effects?: readonly string[]
  /** Wake-ups the routing owed that no fast path gave (see `WakeUpLedger`). */
  wakeUps?: readonly string[]
  /** The browser that read the session's stream, when one did. */
  browser?: BrowserRecord
  /** The session's fold of some events (what a browser's state is checked against). */
  fold?: (events: readonly StoredEvent[]) => unknown
}

const WORKLOAD_POLICIES = {
  report: ['runCommand'],
  approval: ['closeTicket'],
  workload: true,
  maxSteps: WORKLOAD_MAX_STEPS,
}

/** The invariants, each a sentence; what broke, in those words. */
export function brokenInvariants(facts: SessionFacts): string[] {
  const { sessionId, events, fresh, user } = facts
  const broken = [...user.problems]

  // A browser's view converges: what it applied is the log up to the head
  // it caught up with, each event once, in order, as stored; its fold is
  // the server's fold of that much.
  if (facts.browser) broken.push(...brokenBrowser(facts.browser, events, facts.fold))

  if (user.erased) {
    // An erased session stays gone: nothing a late worker, timer or redelivery
    // did brings it back. But for a first command the user sent with no life
    // to name, whose request a stalled server held: it starts the session
    // over, as a new session's first message would.
    const staleStart = events[0] !== undefined && user.unnamed.includes(events[0].id)
    if (events.length > 0 && !staleStart)
      broken.push(`erased, yet its log has ${events.length} events (${events[0]?.type} first)`)
    if (facts.snapshot && !staleStart) broken.push('erased, yet a reducer snapshot is stored')
    return broken
  }

  const failed = fresh.active?.phase === 'failed' ? fresh.active : undefined
  broken.push(
    ...brokenLogInvariants(events, facts.returned, {
      ...(failed ? { failedTurn: failed.turnId } : {}),
    }),
  )
  if (failed && !failed.error) broken.push(`turn ${failed.turnId} failed without a reason`)

  // Folded state: every process's, and the stored snapshot, equal a fold
  // from scratch, as JSON (what a snapshot keeps: a key set to undefined is no key).
  const freshJson = asJson(fresh)
  for (const { owner, state } of facts.processStates) {
    if (!isDeepStrictEqual(asJson(state), freshJson)) {
      broken.push(`process p${owner}'s state differs from a fold of the log from scratch`)
    }
  }
  if (
    facts.snapshot &&
    !isDeepStrictEqual(asJson(facts.snapshot.stored.state), asJson(facts.snapshot.fold))
  ) {
    broken.push(
      `the snapshot at #${facts.snapshot.stored.index} differs from a fold of the log up to it`,
    )
  }

  // Every accepted command is in the log (its receipt is checked above).
  const logged = new Set(events.map((event) => event.id))
  for (const id of user.accepted) {
    if (!logged.has(id)) broken.push(`command ${id} was accepted but is not in the log`)
  }

  // Queue controls did what they say: inputs moved run in the new order, a
  // steer runs before what was queued when it steered; an input sent now
  // runs (where the turns before it ended, not failed).
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

  // The session quiesced: nothing waits on nothing.
  if (fresh.active !== null && !failed)
    broken.push(`turn ${fresh.active.turnId} is still ${fresh.active.phase}`)
  if (fresh.inbox.items.length > 0 && !failed)
    broken.push(`${fresh.inbox.items.length} inputs still queued`)
  if (fresh.pendingApprovals.length > 0 && !failed) broken.push('an approval is still pending')
  if (fresh.pendingInputs.some((input) => input.status === 'pending') && !failed)
    broken.push('an input request is still pending')
  const diagnosis = diagnose(fresh, { now: facts.now })
  if (diagnosis.status === 'stuck')
    broken.push(`stuck: ${diagnosis.waits.map((wait) => wait.says).join('; ')}`)

  // Tools within the seeds: one key per logical call; keyed effects and
  // durable steps once; a 'report' tool at most once; an approval-gated
  // tool never without an approval.
  const policies = facts.policies ?? WORKLOAD_POLICIES
  for (const [call, keys] of facts.tools.keys) {
    const [toolName = '', session, calledId = ''] = call.split('\u0000')
    if (session !== sessionId) continue
    if (keys.size > 1)
      broken.push(`${toolName} call ${calledId} ran under ${keys.size} idempotency keys`)
    const runs = facts.tools.runs.get(call) ?? 0
    if (policies.report.includes(toolName) && runs > 1) {
      broken.push(`${toolName} (toolRecovery: 'report') ran ${runs} times for call ${calledId}`)
    }
  }
  // Per intent, not per call: each recorded charge or email done by its
  // own call, once a turn, none for a call the log lacks; each successful
  // step's content what the model produced.
  if (policies.workload) broken.push(...brokenEffects({ sessionId, events, tools: facts.tools }))
  broken.push(...brokenContent(sessionId, events, facts.spans))
  const approved = approvalsApplied(events)
  // The log's life's runs: an erased life's approvals are gone with it.
  const life = events[0]?.life
  const gated = [...facts.tools.runs.keys()].filter((call) => {
    const [toolName = '', session, , ranIn] = call.split('\u0000')
    return policies.approval.includes(toolName) && session === sessionId && ranIn === life
  }).length
  if (gated > approved)
    broken.push(
      `${policies.approval.join(', ')} ran for ${gated} calls, but ${approved} approvals were applied`,
    )
  broken.push(...(facts.effects ?? []))
  broken.push(...(facts.wakeUps ?? []))

  // The app handler ran for each event it handles, under one key, its effect done.
  if (policies.workload) {
    for (const event of events) {
      if (event.type !== 'sim.order.placed') continue
      const keys = facts.tools.handled.get(`${sessionId}\u0000${event.id}\u0000${event.life}`)
      if (!keys) {
        broken.push(`the handler of ${event.id} never ran`)
        continue
      }
      if (keys.size > 1) broken.push(`the handler of ${event.id} ran under ${keys.size} keys`)
      for (const key of keys) {
        if (!facts.tools.effects.has(`shipping\u0000${sessionId}\u0000${key}`))
          broken.push(`the handler of ${event.id} never shipped its order`)
      }
    }
  }

  broken.push(...brokenStepReruns(events))

  // A response takes at most maxSteps model steps (one whose model calls a
  // tool at every step ends there, 'max-steps').
  if (policies.maxSteps !== undefined) {
    for (const event of events) {
      if (event.type !== 'ai.generation.requested') continue
      const { step, requestId } = event.payload as { step: number; requestId: string }
      if (step > policies.maxSteps)
        broken.push(`model step ${requestId} is step ${step}, past maxSteps ${policies.maxSteps}`)
    }
  }

  // Work that cannot be done ends, not loops: a model step, or one logical
  // tool call, is attempted a bounded number of times (the queue's receives,
  // the crashes), never again and again.
  const attempts = new Map<string, number>()
  for (const event of events) {
    if (event.type !== 'ai.generation.started') continue
    const { requestId } = event.payload as { requestId?: string }
    if (requestId) attempts.set(requestId, (attempts.get(requestId) ?? 0) + 1)
  }
  for (const [requestId, times] of attempts) {
    if (times > MAX_ATTEMPTS) broken.push(`model step ${requestId} was attempted ${times} times`)
  }
  for (const [call, runs] of facts.tools.runs) {
    const [toolName, session, calledId] = call.split('\u0000')
    if (session === sessionId && runs > MAX_ATTEMPTS)
      broken.push(`${toolName} call ${calledId} ran ${runs} times`)
  }

  // The session's model calls never overlap, and each ended; but for a
  // frozen process's: its claim ran out while its call stayed open, and the
  // takeover's call began beside it (nothing of the frozen one lands).
  const mine = facts.spans.filter((span) => span.sessionId === sessionId)
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

function brokenBrowser(
  browser: BrowserRecord,
  events: readonly StoredEvent[],
  fold: ((events: readonly StoredEvent[]) => unknown) | undefined,
): string[] {
  const broken = [...browser.problems]
  if (browser.headAtClose === undefined) return broken
  const expected = events.slice(0, browser.headAtClose)
  const applied = browser.applied
  if (applied.length !== expected.length)
    broken.push(
      `the browser applied ${applied.length} events, the log had ${expected.length} when it left`,
    )
  const differs = applied.findIndex(
    (event, n) => !isDeepStrictEqual(asJson(event), asJson(expected[n])),
  )
  if (differs >= 0)
    broken.push(
      `the browser's event #${applied[differs]?.index} (${applied[differs]?.id}) is not the log's`,
    )
  if (fold && !isDeepStrictEqual(asJson(fold(applied)), asJson(fold(expected))))
    broken.push("the browser's state differs from the server's fold of the log it read")
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
function brokenStepReruns(events: readonly StoredEvent[]): string[] {
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

/** What a failure prints of its session: the diagnosis, the inbox, and the end of its timeline. */
export function explain(events: readonly StoredEvent[], state: AIState, now: number): string[] {
  const diagnosis = diagnose(state, { now })
  return [
    `status: ${diagnosis.status} (phase ${diagnosis.phase ?? 'none'}), inbox ${state.inbox.items.map((item) => item.id).join(', ') || 'empty'}${state.inbox.paused ? ' (paused)' : ''}`,
    ...diagnosis.waits.map(
      (wait) => `${wait.stuck ? 'STUCK' : 'waits'} on ${wait.kind}: ${wait.says}`,
    ),
    ...timeline([...events])
      .slice(-30)
      .map((line) => `#${line.index} ${line.author} ${line.type} ${line.summary}`),
  ]
}

const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value))
