import type { Claim } from '../../log/event-store.ts'
import { controllerRound } from '../controller/controller-round.ts'
import { pausingToolCalls } from '../controller/settle-work.ts'
import { type AwaitedWork, turnAwaits } from '../controller/turn-awaits.ts'
import { DEFAULT_CLAIM_TTL_MS, generationClaimKey, toolClaimKey } from '../ids/claim-keys.ts'
import type { AIState, ToolRecord, TurnPhase } from '../state/ai-state.ts'

// Why a session is not moving, read from the controller's own decisions
// (`controllerRound`, `turnAwaits`, `pausingToolCalls`) over the folded state, and
// from the claims A2's workers hold on the work those decisions name.

type DeadLetter = AIState['deadLetters'][number]

/**
 * A claim as the inspector found it: `none` when no worker ever took the
 * work, `held` while its holder renews it, `lapsed` when it ran out or was
 * given back or taken away (the next wake-up takes the work over).
 */
export interface ClaimView {
  key: string
  state: 'none' | 'held' | 'lapsed'
  attempt?: number
  /** Epoch milliseconds the claim runs (or ran) out. */
  expiresAt?: number
}

/** One thing the session waits on, with a sentence saying what moves it on. */
export type Wait = {
  /** Whose move it is: A2's workers, someone outside (a user, a provider), or a timer. */
  on: 'a2' | 'someone' | 'timer'
  /** Nothing will move it by itself: it needs a wake-up or an operator. */
  stuck: boolean
  says: string
  /** The latest dead letter of the lane that runs this work, since the work began. */
  deadLetter?: DeadLetter
} & (
  | { kind: 'model-step'; requestId: string; step: number; claim: ClaimView }
  | { kind: 'tool'; toolCallId: string; toolName: string; generationId: string; claim: ClaimView }
  | { kind: 'deferred-result'; toolCallId: string; toolName: string; generationId: string }
  | { kind: 'approval'; approvalId: string; toolCallId: string; toolName: string }
  | { kind: 'input'; inputRequestId: string }
  | { kind: 'retry'; error?: string }
  | { kind: 'resume'; pausedBy?: string }
  | {
      kind: 'settle-timer'
      toolCallId: string
      toolName: string
      generationId: string
      firesAt: number
      claim: ClaimView
    }
  | { kind: 'due'; events: { id: string; type: string }[] }
  | { kind: 'inbox-paused'; items: number }
  | { kind: 'nothing' }
)

/**
 * `idle`: no turn and nothing queued; `closed`; `working`: A2 holds a live
 * claim on the work; `waiting`: on someone's answer or a timer; `stuck`:
 * something is due that nothing is doing (a lost wake-up, a crashed worker
 * whose claim lapsed, a dead letter, an overdue timer).
 */
export type SessionStatus = 'idle' | 'closed' | 'working' | 'waiting' | 'stuck'

export interface Diagnosis {
  status: SessionStatus
  phase: TurnPhase | null
  turnId: string | null
  /** The agent version that started the active turn's first step (undefined: none started, or before versions). */
  turnVersion?: string
  waits: Wait[]
  /** Queued inputs not yet admitted. */
  inbox: number
  /** Every dead letter the state holds (the latest 20), oldest first. */
  deadLetters: DeadLetter[]
}

export interface DiagnoseOptions {
  /** The claims on the work the state names (`claimKeysToRead`), by key. */
  claims?: Readonly<Record<string, Claim | undefined>>
  /** Now, in epoch milliseconds. */
  now: number
  /** The agent's claim TTL, which sets when a Pause now's settle timer fires. */
  claimTtlMs?: number
}

/** The claims `diagnose` reads to tell working from stuck: one per piece of A2's own work. */
export function claimKeysToRead(state: AIState): string[] {
  return turnAwaits(state).flatMap((work) =>
    work.kind === 'model-step'
      ? [generationClaimKey(work.requestId)]
      : work.kind === 'tool'
        ? [toolClaimKey(work)]
        : [],
  )
}

function viewOf(key: string, claim: Claim | undefined, now: number): ClaimView {
  if (claim === undefined) return { key, state: 'none' }
  return {
    key,
    state: claim.expiresAt > now ? 'held' : 'lapsed',
    attempt: claim.attempt,
    expiresAt: claim.expiresAt,
  }
}

const iso = (ms: number): string => new Date(ms).toISOString()

function claimSays(what: string, claim: ClaimView, lane: string): string {
  switch (claim.state) {
    case 'held':
      return `${what} is at work: attempt ${claim.attempt} holds ${claim.key} until ${iso(claim.expiresAt ?? 0)} (renewed while it runs)`
    case 'lapsed':
      return `${what} has no live worker: attempt ${claim.attempt}'s claim ${claim.key} ran out at ${iso(claim.expiresAt ?? 0)} (a crash, a timeout, or it was given back); the next wake-up of the ${lane} lane takes it over as attempt ${(claim.attempt ?? 0) + 1}`
    case 'none':
      return `${what} is due but no worker ever took it (${claim.key}): the ${lane} lane was not woken or gave up; waking the session retries it`
  }
}

function latestLetter(
  letters: readonly DeadLetter[],
  lane: string,
  since: number,
): DeadLetter | undefined {
  return letters.filter((letter) => letter.lane === lane && letter.index >= since).at(-1)
}

function ownWork(
  state: AIState,
  work: Extract<AwaitedWork, { kind: 'model-step' | 'tool' }>,
  options: DiagnoseOptions,
): Wait {
  const claims = options.claims ?? {}
  if (work.kind === 'model-step') {
    const key = generationClaimKey(work.requestId)
    const claim = viewOf(key, claims[key], options.now)
    const step = state.active?.step ?? 0
    const letter = latestLetter(state.deadLetters, 'generation', state.active?.request?.index ?? 0)
    return {
      kind: 'model-step',
      requestId: work.requestId,
      step,
      claim,
      on: 'a2',
      stuck: claim.state !== 'held',
      says: claimSays(`model step ${step} (${work.requestId})`, claim, 'generation'),
      ...(letter ? { deadLetter: letter } : {}),
    }
  }
  const key = toolClaimKey(work)
  const claim = viewOf(key, claims[key], options.now)
  const tool = toolOf(state, work)
  const letter = latestLetter(state.deadLetters, 'tools', tool?.called?.index ?? 0)
  const toolName = tool?.toolName ?? '?'
  return {
    kind: 'tool',
    toolCallId: work.toolCallId,
    generationId: work.generationId,
    toolName,
    claim,
    on: 'a2',
    stuck: claim.state !== 'held',
    says: claimSays(`tool ${toolName} (${work.toolCallId})`, claim, 'tools'),
    ...(letter ? { deadLetter: letter } : {}),
  }
}

const toolOf = (
  state: AIState,
  call: { toolCallId: string; generationId: string },
): ToolRecord | undefined =>
  state.tools.find(
    (tool) => tool.toolCallId === call.toolCallId && tool.generationId === call.generationId,
  )

function waitOf(state: AIState, work: AwaitedWork, options: DiagnoseOptions): Wait {
  switch (work.kind) {
    case 'model-step':
    case 'tool':
      return ownWork(state, work, options)
    case 'deferred-result': {
      const toolName = toolOf(state, work)?.toolName ?? '?'
      return {
        ...work,
        toolName,
        on: 'someone',
        stuck: false,
        says: `provider tool ${toolName} (${work.toolCallId}) waits for its deferred result through inputs.toolResult()`,
      }
    }
    case 'approval': {
      const approval = state.pendingApprovals.find((a) => a.approvalId === work.approvalId)
      const toolName = approval?.toolName ?? '?'
      return {
        ...work,
        toolCallId: approval?.toolCallId ?? '?',
        toolName,
        on: 'someone',
        stuck: false,
        says: `an approval of tool ${toolName} (${work.approvalId}): a user approves or denies it, or Stop ends the turn`,
      }
    }
    case 'input':
      return {
        ...work,
        on: 'someone',
        stuck: false,
        says: `an answer to input request ${work.inputRequestId}`,
      }
    case 'retry': {
      const error = state.active?.error
      return {
        kind: 'retry',
        ...(error === undefined ? {} : { error }),
        on: 'someone',
        stuck: false,
        says: `the model call failed${error ? ` (${error})` : ''}: a retry or an interruption moves the turn on`,
      }
    }
    case 'resume': {
      const pausedBy = state.active?.pausedBy
      return {
        kind: 'resume',
        ...(pausedBy === undefined ? {} : { pausedBy }),
        on: 'someone',
        stuck: false,
        says: 'the turn is paused: Resume moves it on',
      }
    }
  }
}

/**
 * Why the session is (not) moving: what its active turn waits on (a model
 * step or a tool and the claim its worker holds, an approval, an input, a
 * retry, a resume, a Pause now's settle timer), what the controller's next
 * round would append that nobody wrote (an undecided command, the next move),
 * and the dead letters on record.
 *
 * @example
 * const state = stateAt(events, headOf(events)).state
 * const life = events.at(-1)?.life // a claim is stored in its life of the session
 * const claims = Object.fromEntries(await Promise.all(claimKeysToRead(state).map(
 *   async (key) => [key, await store.readClaim(id, claimKeyOfLife(key, life))])))
 * diagnose(state, { claims, now: Date.now() }).waits.map((wait) => wait.says)
 */
export function diagnose(state: AIState, options: DiagnoseOptions): Diagnosis {
  const active = state.active
  const claimTtlMs = options.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS
  const waits: Wait[] = []

  // What the admission lane would append now: a command to decide, work to
  // settle, the next move. In a live session it is written within moments.
  const due = controllerRound(state).events
  if (due.length > 0) {
    const letter = latestLetter(state.deadLetters, 'admission', 0)
    waits.push({
      kind: 'due',
      events: due.map((event) => ({ id: event.id, type: event.type })),
      on: 'a2',
      stuck: true,
      says: `the controller has ${due.length} event(s) due that nobody wrote (${[...new Set(due.map((event) => event.type))].join(', ')}): unless they appear in a moment, the admission lane was not woken or gave up; waking the session retries it`,
      ...(letter ? { deadLetter: letter } : {}),
    })
  }

  // A Pause now's cut-short calls settle by a timer, not by their (revoked) claims.
  const settling = new Map(
    pausingToolCalls(state).map((tool) => [toolClaimKey(tool), tool] as const),
  )
  for (const work of turnAwaits(state)) {
    const key = work.kind === 'tool' ? toolClaimKey(work) : undefined
    const tool = key === undefined ? undefined : settling.get(key)
    if (key !== undefined && tool !== undefined) {
      const firesAt = (active?.pausingSince ?? 0) + claimTtlMs
      const claim = viewOf(key, options.claims?.[key], options.now)
      const overdue = firesAt <= options.now && claim.state !== 'held'
      waits.push({
        kind: 'settle-timer',
        toolCallId: tool.toolCallId,
        toolName: tool.toolName,
        generationId: tool.generationId,
        firesAt,
        claim,
        on: 'timer',
        stuck: overdue,
        says: overdue
          ? `tool ${tool.toolName} (${tool.toolCallId}) was cut short by Pause now and its settle timer was due at ${iso(firesAt)} but nothing settled it: waking the session settles it`
          : `tool ${tool.toolName} (${tool.toolCallId}) was cut short by Pause now: its worker acknowledges, or a settle timer records it at ${iso(firesAt)}`,
      })
      continue
    }
    waits.push(waitOf(state, work, options))
  }

  if (active !== null && waits.length === 0) {
    waits.push({
      kind: 'nothing',
      on: 'a2',
      stuck: true,
      says: `the turn is ${active.phase} and waits on nothing the controller knows: a bug; report it with this session's log`,
    })
  }
  if (active === null && state.inbox.paused && state.inbox.items.length > 0) {
    waits.push({
      kind: 'inbox-paused',
      items: state.inbox.items.length,
      on: 'someone',
      stuck: false,
      says: `${state.inbox.items.length} queued input(s) wait while the session is paused: Resume admits them`,
    })
  }

  const status: SessionStatus = waits.some((wait) => wait.stuck)
    ? 'stuck'
    : waits.some((wait) => wait.on === 'a2')
      ? 'working'
      : waits.length > 0
        ? 'waiting'
        : state.closed
          ? 'closed'
          : 'idle'
  return {
    status,
    phase: active?.phase ?? null,
    turnId: active?.turnId ?? null,
    ...(active?.version === undefined ? {} : { turnVersion: active.version }),
    waits,
    inbox: state.inbox.items.length,
    deadLetters: state.deadLetters,
  }
}
