import type { AgentSession } from '../../shared/agent/index.ts'
import { inputs } from '../../shared/ai.ts'
import type { StoredEvent } from '../../shared/log/event.ts'
import { messageOf } from '../../shared/log/message-of.ts'
import type { AIState } from '../../shared/model/state/ai-state.ts'
import { sleep } from '../../shared/timing/sleep.ts'
import type { SessionPlan, TurnPlan } from './plan.ts'

// A session's user, as the plan says: each turn's message, then whatever the
// turn asks of them (an approval answered late, Stop while it streams, Pause
// now and Resume, steering while a tool runs, a retry of a failed turn),
// until the turn ends. It reads the state as a page would, by polling.

/** What the driver saw of its session, for the checks and the figures. */
export interface SessionRun {
  sessionId: string
  /** Every event the session's appends returned: none may be lost. */
  appended: StoredEvent[]
  /** How long each turn took, from its message to its end (ms). */
  turnMs: number[]
  approvalsApproved: number
  /** What went wrong while driving (a turn that never ended). */
  problems: string[]
}

export interface DriveOptions {
  /** How often the user looks at the state (ms). */
  pollMs: number
  /** How long a turn may take before it counts as stuck (ms). */
  turnTimeoutMs: number
}

type Session = Pick<AgentSession<AIState>, 'append' | 'state'>

export async function driveSession(
  session: Session,
  plan: SessionPlan,
  options: DriveOptions,
): Promise<SessionRun> {
  const run: SessionRun = {
    sessionId: plan.sessionId,
    appended: [],
    turnMs: [],
    approvalsApproved: 0,
    problems: [],
  }
  // A client sends a command again, with the same ID, when an append fails
  // (a contended session on a slow store): the log replays what landed.
  const append = async (...events: Parameters<Session['append']>) => {
    for (let attempt = 1; ; attempt++) {
      try {
        run.appended.push(...(await session.append(...events)))
        return
      } catch (error) {
        if (attempt >= 5) {
          run.problems.push(`an append kept failing: ${messageOf(error)}`)
          return
        }
        await sleep(200 * attempt)
      }
    }
  }
  for (const [index, turn] of plan.turns.entries()) {
    const started = performance.now()
    const ended = await playTurn(session, append, plan.sessionId, index, turn, run, options)
    if (!ended) {
      run.problems.push(
        `turn ${index} (${turn.kind}) did not end within ${options.turnTimeoutMs} ms`,
      )
      return run
    }
    run.turnMs.push(performance.now() - started)
  }
  // The reminders set in the last turns arrive within half a second.
  await sleep(500)
  const quiet = await until(options, async () => {
    const { state } = await session.state()
    return state.active === null && state.inbox.items.length === 0
  })
  if (!quiet) run.problems.push('the session did not settle after its last turn')
  return run
}

async function playTurn(
  session: Session,
  append: (...events: Parameters<Session['append']>) => Promise<void>,
  sessionId: string,
  index: number,
  turn: TurnPlan,
  run: SessionRun,
  options: DriveOptions,
): Promise<boolean> {
  const messageId = `${sessionId}-t${index}`
  const steerId = `${messageId}-steer`
  await append(...inputs.message(userMessage(messageId, `${sessionId} t${index}`)))
  const answered = new Set<string>()
  let stopped = false
  let paused = false
  let resumed = false
  let steered = false
  let retries = 0
  return until(options, async () => {
    const snapshot = await session.state()
    const { state } = snapshot
    const active = state.active
    for (const pending of state.pendingApprovals) {
      if (answered.has(pending.approvalId)) continue
      answered.add(pending.approvalId)
      // Answered late, as a person does; the turn waits meanwhile.
      void sleep(turn.lateMs).then(async () => {
        await append(
          ...inputs.approval(pending, {
            approved: turn.approve,
            id: `${messageId}-answer-${answered.size}`,
          }),
        )
        if (turn.approve) run.approvalsApproved++
      })
    }
    if (active?.phase === 'failed') {
      await append(
        ...inputs.retry({ turnId: active.turnId, retryId: `${messageId}-retry-${retries++}` }),
      )
      return false
    }
    // The step streams once its response shows text.
    const response = state.messages.find((message) => message.id === active?.responseMessageId)
    const streaming =
      active?.inputId === messageId &&
      state.activeGeneration?.status === 'running' &&
      (response?.parts.some((part) => part.type === 'text') ?? false)
    if (turn.kind === 'stop' && streaming && !stopped) {
      stopped = true
      await append(
        ...inputs.stop({
          turnId: active.turnId,
          frontier: snapshot.index,
          id: `${messageId}-stop`,
        }),
      )
    }
    if (turn.kind === 'pause' && streaming && !paused) {
      paused = true
      await append(...inputs.pause({ when: 'now', id: `${messageId}-pause` }))
    }
    if (turn.kind === 'pause' && paused && !resumed && active?.phase === 'paused') {
      resumed = true
      await sleep(turn.lateMs)
      await append(...inputs.resume({ id: `${messageId}-resume` }))
    }
    const toolRuns = state.tools.some(
      (tool) => tool.status === 'running' && tool.toolName === 'lookup',
    )
    if (turn.kind === 'steer' && !steered && active?.inputId === messageId && toolRuns) {
      steered = true
      await append(
        ...inputs.steer(userMessage(steerId, `${sessionId} t${index} steered`), {
          afterStepOf: active.turnId,
        }),
      )
    }
    const ids = new Set(state.messages.map((message) => message.id))
    return (
      active === null &&
      state.inbox.items.length === 0 &&
      ids.has(messageId) &&
      (!steered || ids.has(steerId)) &&
      state.messages.at(-1)?.role === 'assistant'
    )
  })
}

function userMessage(id: string, text: string) {
  return { id, role: 'user' as const, parts: [{ type: 'text' as const, text }] }
}

/** Polls `check` (with jitter, so sessions do not poll in step) until it passes or time runs out. */
async function until(options: DriveOptions, check: () => Promise<boolean>): Promise<boolean> {
  const deadline = performance.now() + options.turnTimeoutMs
  while (performance.now() < deadline) {
    if (await check()) return true
    await sleep(options.pollMs * (0.5 + Math.random()))
  }
  return false
}
