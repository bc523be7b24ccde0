import type { ToolSet } from 'ai'
import type { EventStore } from '../log/event-store.ts'
import type { AIState } from '../model/state/ai-state.ts'
import { memoryEventStore } from '../stores/memory/memory-event-store.ts'
import {
  type ConversationAction,
  type CrashRun,
  type CrashRunOptions,
  type CrashTestAgent,
  type EffectLedger,
  runConversation,
} from './crash-run.ts'
import type { Step } from './scripted-model.ts'

export interface CrashPointsOptions<Tools extends ToolSet = ToolSet> {
  /** Your agent's options: name, tools, `toolRecovery`, `harness` (approvals), `contract`. */
  agent: CrashTestAgent<Tools>
  /** The model's answers, one per model step in order: `text()`, `toolCalls()`. */
  model: Step[]
  /** What the user does, in order, each once the session has nothing left to do. */
  conversation: readonly ConversationAction[]
  /** The fake services your tools call (`effectLedger()`), checked for effects done twice or lost. */
  effects?: readonly EffectLedger[]
  /** A fresh store per run on the given clock (default: the memory store). */
  store?: (now: () => number) => EventStore | Promise<EventStore>
  /** Which points to crash at: all (default), a number of them spread evenly, or a list. */
  points?: 'all' | { sample: number } | readonly number[]
  /**
   * Also freeze the process at each point rather than kill it: its claims
   * run out and its message comes back, a second process takes its work
   * over and settles, then the first thaws and goes on with what it knew
   * (a takeover while the first still writes). Doubles the runs.
   */
  freeze?: boolean
  sessionId?: string
  /** Called after each crashed run (`run` of `of`), e.g. to print progress of a long matrix. */
  onRun?: (progress: { run: number; of: number; point: number; failures: number }) => void
}

/** An invariant a run broke, and at which crash point. */
export interface CrashFailure {
  point: number
  /** What the process was doing: e.g. `after store.append(tool.called)`. */
  label: string
  /** Frozen there while a second process took over, not killed. */
  frozen?: true
  invariant: string
  detail: string
}

export interface CrashPointsReport {
  /** The crash points of an uncrashed run of the conversation. */
  points: number
  /** Runs made, the uncrashed one included. */
  runs: number
  failures: CrashFailure[]
  duplicatedEffects: number
  lostEvents: number
  stuckSessions: number
  /** Every point's label, in order (1-based: `labels[k - 1]` is point k). */
  labels: string[]
}

const INTERRUPTED = 'The tool call was interrupted'

/**
 * Enumerates the crash points of a scripted conversation and, for each,
 * kills a run there (the process is abandoned: nothing flushed, no claim
 * released), recovers on a fresh agent over the same store, and checks the
 * outcome against an uncrashed run: the conversation completes with the same
 * transcript, no appended event is lost, indexes are gapless, no assistant
 * message is duplicated, and no effect is duplicated or lost: each effect in
 * `effects` happened as often as in the uncrashed run (exactly once for a
 * tool that passes its `idempotencyKey` or uses `ctx.step()`; a tool with
 * `toolRecovery: 'report'` may do it less, with the interruption recorded).
 *
 * @example
 * const report = await crashPoints({ agent: { name: 'shop', tools: { chargeCard } },
 *   model: [toolCalls(...), text('Charged.')], conversation: [{ user: 'Charge me' }],
 *   effects: [payments] })
 */
export async function crashPoints<Tools extends ToolSet>(
  options: CrashPointsOptions<Tools>,
): Promise<CrashPointsReport> {
  const run: CrashRunOptions<Tools> = {
    agent: options.agent,
    model: options.model,
    conversation: options.conversation,
    store: options.store ?? ((now) => memoryEventStore({ now })),
    effects: options.effects ?? [],
    sessionId: options.sessionId ?? 'crash-test',
  }
  const baseline = await runConversation(run)
  const failures: CrashFailure[] = []
  const report: CrashPointsReport = {
    points: baseline.labels.length,
    runs: 1,
    failures,
    duplicatedEffects: 0,
    lostEvents: 0,
    stuckSessions: 0,
    labels: baseline.labels,
  }
  if (baseline.stuck.length > 0 || baseline.state.active !== null) {
    failures.push({
      point: 0,
      label: 'no crash',
      invariant: 'the uncrashed conversation completes',
      detail: baseline.stuck.join('; ') || `turn ${baseline.state.active?.turnId} is still active`,
    })
    return report
  }
  const chosen = pointsToRun(options.points, baseline.labels.length)
  const modes = options.freeze ? [false, true] : [false]
  const runs = chosen.flatMap((point) => modes.map((freeze) => ({ point, freeze })))
  for (const [position, { point, freeze }] of runs.entries()) {
    const crashed = await runConversation(run, point, { freeze })
    report.runs++
    const reached = crashed.crash !== undefined || crashed.frozen !== undefined
    const label = reached ? (baseline.labels[point - 1] ?? '') : 'not reached'
    for (const broken of brokenInvariants(baseline, crashed)) {
      failures.push({ point, label, ...(freeze ? { frozen: true as const } : {}), ...broken })
      if (broken.invariant === 'no effect duplicated') report.duplicatedEffects++
      if (broken.invariant === 'no event lost') report.lostEvents++
      if (broken.invariant === 'the conversation completes') report.stuckSessions++
    }
    options.onRun?.({ run: position + 1, of: runs.length, point, failures: failures.length })
  }
  return report
}

/** Runs `crashPoints()` and throws one error naming every broken point and invariant. */
export async function expectCrashSafe<Tools extends ToolSet>(
  options: CrashPointsOptions<Tools>,
): Promise<CrashPointsReport> {
  const report = await crashPoints(options)
  if (report.failures.length > 0) {
    const lines = report.failures
      .slice(0, 20)
      .map(
        (failure) =>
          `- ${failure.frozen ? 'frozen' : 'crash'} point ${failure.point} (${failure.label}): ${failure.invariant}: ${failure.detail}`,
      )
    const more = report.failures.length > 20 ? [`- and ${report.failures.length - 20} more`] : []
    throw new Error(
      `${report.failures.length} broken invariants over ${report.points} crash points:\n${[...lines, ...more].join('\n')}`,
    )
  }
  return report
}

function pointsToRun(choice: CrashPointsOptions['points'], total: number): number[] {
  const all = Array.from({ length: total }, (_, i) => i + 1)
  if (choice === undefined || choice === 'all') return all
  if (Array.isArray(choice)) return choice.filter((point) => point >= 1 && point <= total)
  const { sample } = choice as { sample: number }
  if (sample >= total) return all
  // Evenly spread inside the run (its first and last points are the least
  // telling), and deterministic, so a failure reproduces.
  return [
    ...new Set(
      Array.from({ length: sample }, (_, i) => Math.round(((i + 1) * total) / (sample + 1))),
    ),
  ]
}

/**
 * The invariants `run` broke against the uncrashed `baseline`: it completed,
 * indexes gapless, no appended event lost, no duplicate assistant message,
 * the same transcript, each effect as often (or less, with an interruption
 * recorded). Runs from another driver (the local pipeline) are checked here too.
 * @internal Exported for the pipeline's crash test and the soak (knip --production).
 */
export function brokenInvariants(
  baseline: CrashRun,
  run: CrashRun,
): { invariant: string; detail: string }[] {
  const broken: { invariant: string; detail: string }[] = []
  const fail = (invariant: string, detail: string) => broken.push({ invariant, detail })

  if (run.stuck.length > 0) fail('the conversation completes', run.stuck.join('; '))
  else if (run.state.active !== null) {
    fail('the conversation completes', `turn ${run.state.active.turnId} is still active`)
  } else if (run.state.pendingApprovals.length !== baseline.state.pendingApprovals.length) {
    fail('the conversation completes', 'an approval is still pending')
  }
  if (run.state.deadLetters.length > 0) {
    fail('the conversation completes', `dead-lettered: ${run.state.deadLetters[0]?.error}`)
  }

  const gap = run.events.findIndex((event, position) => event.index !== position + 1)
  if (gap !== -1) fail('indexes gapless', `event ${gap + 1} has index ${run.events[gap]?.index}`)

  const byIndex = new Map(run.events.map((event) => [event.index, event.id]))
  const lost = run.appended.filter(({ id, index }) => byIndex.get(index) !== id)
  if (lost.length > 0) {
    fail('no event lost', `${lost.map(({ id, index }) => `${id} at ${index}`).join(', ')}`)
  }

  const ids = run.state.messages.map((message) => message.id)
  const duplicated = ids.filter((id, position) => ids.indexOf(id) !== position)
  const assistants = (state: AIState) =>
    state.messages.filter((message) => message.role === 'assistant').length
  if (duplicated.length > 0 || assistants(run.state) !== assistants(baseline.state)) {
    fail(
      'no duplicate assistant message',
      duplicated.length > 0
        ? `messages ${duplicated.join(', ')} appear twice`
        : `${assistants(run.state)} assistant messages, ${assistants(baseline.state)} without a crash`,
    )
  }

  const recovered = run.events.some(
    (event) =>
      event.type === 'ai.tool.result' &&
      String((event.payload as { errorText?: unknown }).errorText ?? '').startsWith(INTERRUPTED),
  )
  const expected = JSON.stringify(transcript(baseline.state, run.state))
  const actual = JSON.stringify(transcript(run.state, baseline.state))
  if (expected !== actual) {
    fail('the same transcript as without a crash', `expected ${expected}, got ${actual}`)
  }

  for (const [name, performed] of Object.entries(run.effects)) {
    const counts = tally(performed)
    for (const [what, count] of tally(baseline.effects[name] ?? [])) {
      const seen = counts.get(what) ?? 0
      counts.delete(what)
      if (seen === count || (seen < count && recovered)) continue
      fail(
        seen > count ? 'no effect duplicated' : 'no effect lost',
        `${name}: "${what}" ${seen} times, ${count} without a crash${seen < count ? ' and no toolRecovery outcome recorded' : ''}`,
      )
    }
    for (const [what, seen] of counts) {
      fail('no effect duplicated', `${name}: "${what}" ${seen} times, never without a crash`)
    }
  }
  return broken
}

function tally(items: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1)
  return counts
}

type Part = {
  type: string
  text?: string
  toolCallId?: string
  state?: string
  output?: unknown
  errorText?: string
}

/**
 * The transcript as the user reads it: each message's text and tool
 * outcomes. A tool call that `toolRecovery: 'report'` reported as
 * interrupted in `like` takes that outcome here too, since the seeds let it
 * differ.
 */
function transcript(state: AIState, like?: AIState): unknown[] {
  const interrupted = new Set<string>()
  for (const messages of [state.messages, like?.messages ?? []]) {
    for (const [position, message] of messages.entries()) {
      for (const part of message.parts as Part[]) {
        if (part.toolCallId && String(part.errorText ?? '').startsWith(INTERRUPTED)) {
          interrupted.add(`${position}:${part.toolCallId}`)
        }
      }
    }
  }
  // IDs are left out: a step regenerated after a crash is a new model step,
  // and IDs derived from its calls (a reminder's message) differ with it.
  return state.messages.map((message, position) => ({
    role: message.role,
    parts: (message.parts as Part[]).flatMap((part): unknown[] => {
      if (part.type === 'text') return [{ text: part.text }]
      if (part.toolCallId === undefined) return []
      if (interrupted.has(`${position}:${part.toolCallId}`)) {
        return [{ tool: part.type, toolCallId: part.toolCallId, state: 'interrupted' }]
      }
      return [
        {
          tool: part.type,
          toolCallId: part.toolCallId,
          state: part.state,
          ...(part.output === undefined ? {} : { output: part.output }),
          ...(part.errorText === undefined ? {} : { errorText: part.errorText }),
        },
      ]
    }),
  }))
}
