import { isDeepStrictEqual } from 'node:util'
import type { StoredEvent } from '../../log/event.ts'
import type { StoredSnapshot } from '../../log/event-store.ts'
import { diagnose } from '../../model/inspect/diagnose.ts'
import { timeline } from '../../model/inspect/timeline.ts'
import type { AIState } from '../../model/state/ai-state.ts'
import { brokenLogInvariants } from '../log-invariants.ts'
import type { BrowserRecord } from './browser.ts'
import { brokenContent, brokenEffects } from './intent-oracle.ts'
import {
  brokenApprovalGates,
  brokenAttempts,
  brokenHandlers,
  brokenMaxSteps,
  brokenModelCalls,
  brokenQueueControls,
  brokenQuiescence,
  brokenStepReruns,
  brokenToolKeys,
} from './session-checks.ts'
import type { ModelSpan } from './sim-model.ts'
import type { UserRecord } from './user.ts'
import { type ToolLedger, WORKLOAD_MAX_STEPS } from './workload-agent.ts'

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
  if (user.erased) return [...broken, ...brokenErased(facts)]

  const failed = fresh.active?.phase === 'failed' ? fresh.active : undefined
  broken.push(
    ...brokenLogInvariants(events, facts.returned, {
      ...(failed ? { failedTurn: failed.turnId } : {}),
    }),
  )
  if (failed && !failed.error) broken.push(`turn ${failed.turnId} failed without a reason`)
  broken.push(...brokenFolds(facts))
  // Every accepted command is in the log (its receipt is checked above).
  const logged = new Set(events.map((event) => event.id))
  for (const id of user.accepted) {
    if (!logged.has(id)) broken.push(`command ${id} was accepted but is not in the log`)
  }
  broken.push(...brokenQueueControls(events, fresh, user, failed !== undefined))
  broken.push(...brokenQuiescence(fresh, facts.now, failed !== undefined))

  const policies = facts.policies ?? WORKLOAD_POLICIES
  broken.push(...brokenToolKeys(facts.tools, sessionId, policies.report))
  // Per intent, not per call: each recorded charge or email done by its
  // own call, once a turn, none for a call the log lacks; each successful
  // step's content what the model produced.
  if (policies.workload) broken.push(...brokenEffects({ sessionId, events, tools: facts.tools }))
  broken.push(...brokenContent(sessionId, events, facts.spans))
  broken.push(...brokenApprovalGates(events, facts.tools, sessionId, policies.approval))
  broken.push(...(facts.effects ?? []))
  broken.push(...(facts.wakeUps ?? []))
  if (policies.workload) broken.push(...brokenHandlers(events, facts.tools, sessionId))
  broken.push(...brokenStepReruns(events))
  if (policies.maxSteps !== undefined) broken.push(...brokenMaxSteps(events, policies.maxSteps))
  broken.push(...brokenAttempts(events, facts.tools, sessionId))
  broken.push(...brokenModelCalls(facts.spans, sessionId))
  return broken
}

/**
 * An erased session stays gone: nothing a late worker, timer or redelivery
 * did brings it back. But for a first command the user sent with no life
 * to name, whose request a stalled server held: it starts the session
 * over, as a new session's first message would.
 */
function brokenErased({ events, user, snapshot }: SessionFacts): string[] {
  const broken: string[] = []
  const staleStart = events[0] !== undefined && user.unnamed.includes(events[0].id)
  if (events.length > 0 && !staleStart)
    broken.push(`erased, yet its log has ${events.length} events (${events[0]?.type} first)`)
  if (snapshot && !staleStart) broken.push('erased, yet a reducer snapshot is stored')
  return broken
}

/**
 * Folded state: every process's, and the stored snapshot, equal a fold
 * from scratch, as JSON (what a snapshot keeps: a key set to undefined is no key).
 */
function brokenFolds(facts: SessionFacts): string[] {
  const broken: string[] = []
  const freshJson = asJson(facts.fresh)
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
