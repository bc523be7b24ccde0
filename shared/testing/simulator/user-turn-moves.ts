import type { UIMessage } from 'ai'
import type { EventInput } from '../../log/event.ts'
import type { StateSnapshot } from '../../log/reducer.ts'
import { inputs } from '../../model/inputs/inputs.ts'
import type { AIState } from '../../model/state/ai-state.ts'
import type { TurnPlan } from './workload.ts'
import { turnText } from './workload-agent.ts'

// What a simulated user does next in a turn, decided from one look at the
// session's state: pure choices, so `User.playTurn` (./user.ts) keeps every
// wait (each append, each sleep) itself, in the order it always made them;
// a replay depends on that order.

/** The IDs a turn's commands and inputs are named by. */
export interface TurnIds {
  sessionId: string
  index: number
  /** The turn's own message. */
  id: string
  queuedId: string
  movedId: string
  steerId: string
}

export function turnIds(sessionId: string, index: number): TurnIds {
  const id = `${sessionId}-t${index}`
  return { sessionId, index, id, queuedId: `${id}-q`, movedId: `${id}-q2`, steerId: `${id}-steer` }
}

/** What the user did of the turn's plan so far. */
export interface TurnProgress {
  acted: boolean
  queued: boolean
  edited: boolean
  moved: boolean
  /** The owners the user interrupted (as JSON). */
  interrupted: Set<string>
}

export const freshProgress = (): TurnProgress => ({
  acted: false,
  queued: false,
  edited: false,
  moved: false,
  interrupted: new Set(),
})

/** One look at the session during a turn. */
export interface TurnPoll {
  turn: TurnPlan
  snapshot: StateSnapshot<AIState>
  /** The user's time to act has come (`turn.lateMs` since the message). */
  late: boolean
}

/** A command the user sends, and what their record keeps of it once sent. */
export interface UserMove {
  what: string
  events: EventInput[]
  /** A Pause: the user resumes it once the state shows it. */
  pausedAt?: { id: string; lateMs: number }
  order?: { commandId: string; first: string; before: string; steers?: boolean }
  sentNow?: { commandId: string; inputId: string }
}

const userMessage = (id: string, content: string): UIMessage => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text: content }],
})

const isWaiting = (poll: TurnPoll, inputId: string): boolean =>
  poll.snapshot.state.inbox.items.some((item) => item.id === inputId)

/** Whether the active turn is this one, and not failed. */
function isMine(ids: TurnIds, poll: TurnPoll): boolean {
  const active = poll.snapshot.state.active
  return active?.inputId === ids.id && active.phase !== 'failed'
}

/** The turn's tool, while it runs (not the model). */
function runningTool(poll: TurnPoll) {
  const { state } = poll.snapshot
  return state.tools.find(
    (call) =>
      call.status === 'running' &&
      call.turnId === state.active?.turnId &&
      call.toolName === (poll.turn.kind === 'report' ? 'runCommand' : 'lookup'),
  )
}

/** A queue turn's message (and a second one to move), once the turn is the user's. */
export function queueMove(
  ids: TurnIds,
  poll: TurnPoll,
  progress: TurnProgress,
): UserMove | undefined {
  const { twist, kind } = poll.turn
  const queues =
    kind === 'queue' ||
    ((twist === 'queue-then-steer' || twist === 'send-now') && runningTool(poll) !== undefined)
  if (!queues || progress.queued || !isMine(ids, poll)) return undefined
  progress.queued = true
  return {
    what: twist === 'move' ? 'queued messages' : 'queued message',
    events: [
      ...inputs.message(userMessage(ids.queuedId, turnText(ids.sessionId, ids.index, 'queued'))),
      ...(twist === 'move'
        ? inputs.message(userMessage(ids.movedId, turnText(ids.sessionId, ids.index, 'moved')))
        : []),
    ],
  }
}

/** The queued message edited or removed while it waits. */
export function queueEditMove(
  ids: TurnIds,
  poll: TurnPoll,
  progress: TurnProgress,
): UserMove | undefined {
  const { turn } = poll
  if (turn.kind !== 'queue' || turn.twist === 'send-now') return undefined
  if (!progress.queued || progress.edited || turn.queueEdit === 'none') return undefined
  if (!isWaiting(poll, ids.queuedId)) return undefined
  progress.edited = true
  return {
    what: `queue ${turn.queueEdit}`,
    events:
      turn.queueEdit === 'edit'
        ? inputs.queue.edit(
            userMessage(ids.queuedId, turnText(ids.sessionId, ids.index, 'edited')),
            { id: `${ids.id}-edit` },
          )
        : inputs.queue.remove(ids.queuedId, { id: `${ids.id}-remove` }),
  }
}

/** The second queued message moved before the first: they run in that order. */
export function reorderMove(
  ids: TurnIds,
  poll: TurnPoll,
  progress: TurnProgress,
): UserMove | undefined {
  if (poll.turn.twist !== 'move' || !progress.queued || progress.moved) return undefined
  if (!isWaiting(poll, ids.queuedId) || !isWaiting(poll, ids.movedId)) return undefined
  progress.moved = true
  const moveId = `${ids.id}-move`
  return {
    what: 'move the second queued message first',
    events: inputs.queue.move({ inputId: ids.movedId, beforeId: ids.queuedId, id: moveId }),
    order: { commandId: moveId, first: ids.movedId, before: ids.queuedId },
  }
}

/**
 * One owner: the hanging generation, or its request before it starts. An
 * owner gone stale (an attempt took over) is rejected, and the step hangs
 * on: the user interrupts again what they see.
 */
function interruptStepMove(ids: TurnIds, poll: TurnPoll, progress: TurnProgress) {
  const { state } = poll.snapshot
  const generation = state.activeGeneration
  const owner = generation
    ? { generationId: generation.generationId, responseMessageId: generation.responseMessageId }
    : state.activeRequestId && state.activeResponseMessageId
      ? { requestId: state.activeRequestId, messageId: state.activeResponseMessageId }
      : undefined
  const key = JSON.stringify(owner)
  if (!owner || progress.interrupted.has(key)) return undefined
  progress.interrupted.add(key)
  return {
    what: 'interrupt the step',
    events: inputs.interrupt(owner, { id: `${ids.id}-interrupt-${progress.interrupted.size}` }),
  }
}

/** The controls the turn's kind plays once it is late: stop, pause now, pause after the turn. */
function plannedControlMove(ids: TurnIds, poll: TurnPoll, turnId: string): UserMove | undefined {
  const { turn, late, snapshot } = poll
  const pausedAt = { id: ids.id, lateMs: turn.lateMs }
  if (turn.kind === 'stop' && late) {
    return {
      what: 'stop',
      events: inputs.stop({ turnId, frontier: snapshot.index, id: `${ids.id}-stop` }),
    }
  }
  if (turn.kind === 'pause' && late) {
    return {
      what: 'pause now',
      events: inputs.pause({ when: 'now', id: `${ids.id}-pause` }),
      pausedAt,
    }
  }
  if (turn.kind === 'pause-after-turn') {
    return {
      what: 'pause after turn',
      events: inputs.pause({ when: 'after-turn', id: `${ids.id}-pause` }),
      pausedAt,
    }
  }
  return undefined
}

/** The twists played while the turn's tool runs: pause, stop or interrupt it. */
function inToolMove(ids: TurnIds, poll: TurnPoll, turnId: string): UserMove | undefined {
  const running = runningTool(poll)
  if (!running) return undefined
  const { twist } = poll.turn
  if (twist === 'pause-in-tool') {
    return {
      what: `pause now, while ${running.toolName} runs`,
      events: inputs.pause({ when: 'now', id: `${ids.id}-pause` }),
      pausedAt: { id: ids.id, lateMs: poll.turn.lateMs },
    }
  }
  if (twist === 'stop-in-tool') {
    return {
      what: `stop, while ${running.toolName} runs`,
      events: inputs.stop({ turnId, frontier: poll.snapshot.index, id: `${ids.id}-stop` }),
    }
  }
  if (twist === 'interrupt-tool') {
    return {
      what: `interrupt ${running.toolName}`,
      events: inputs.interrupt({ toolCallId: running.toolCallId }, { id: `${ids.id}-interrupt` }),
    }
  }
  return undefined
}

/** The queued message sent now, or a steer (after a queued message, with that twist). */
function steeringMove(
  ids: TurnIds,
  poll: TurnPoll,
  progress: TurnProgress,
  turnId: string,
): UserMove | undefined {
  const { twist, kind } = poll.turn
  if (twist === 'send-now' && progress.queued && isWaiting(poll, ids.queuedId)) {
    const sendNowId = `${ids.id}-send-now`
    return {
      what: 'send the queued message now',
      events: inputs.queue.sendNow(ids.queuedId, { afterStepOf: turnId, id: sendNowId }),
      sentNow: { commandId: sendNowId, inputId: ids.queuedId },
    }
  }
  const steers =
    twist === undefined || (twist === 'queue-then-steer' && isWaiting(poll, ids.queuedId))
  if (kind !== 'steer' || !runningTool(poll) || !steers) return undefined
  return {
    what: twist === undefined ? 'steer' : 'steer, a message queued',
    events: inputs.steer(userMessage(ids.steerId, turnText(ids.sessionId, ids.index, 'steered')), {
      afterStepOf: turnId,
    }),
    ...(twist === 'queue-then-steer'
      ? {
          order: { commandId: ids.steerId, first: ids.steerId, before: ids.queuedId, steers: true },
        }
      : {}),
  }
}

/** The turn's one planned act (or an interrupt of its step, again while it hangs), while the turn is the user's. */
export function actMove(
  ids: TurnIds,
  poll: TurnPoll,
  progress: TurnProgress,
): UserMove | undefined {
  const active = poll.snapshot.state.active
  if (progress.acted || !isMine(ids, poll) || !active) return undefined
  const { turn, late } = poll
  if (turn.kind === 'stop' && late && turn.twist === 'interrupt') {
    return interruptStepMove(ids, poll, progress)
  }
  const move =
    plannedControlMove(ids, poll, active.turnId) ??
    inToolMove(ids, poll, active.turnId) ??
    steeringMove(ids, poll, progress, active.turnId)
  if (move) progress.acted = true
  return move
}
