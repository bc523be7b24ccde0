import type { UIMessage } from 'ai'
import type { ControlChange } from '../events/controller-events.ts'
import type { AIState, InboxItem } from '../state/ai-state.ts'
import { type RequestOf, reject, type Verdict } from './verdict.ts'

// Verdicts on requests that add to the inbox or rearrange it: new messages and
// steering, and the queue's edit, move, remove and send-now.

/** Where new steering for `turnId` goes: right after its earlier steering, or first. */
function steeringSlot<M extends UIMessage>(
  items: readonly InboxItem<M>[],
  turnId: string,
  except?: string,
): string | null {
  const rest = items.filter((item) => item.id !== except)
  let at = 0
  rest.forEach((item, index) => {
    if (item.afterStepOf === turnId) at = index + 1
  })
  return rest[at]?.id ?? null
}

const isIdle = <M extends UIMessage>(state: AIState<M>): boolean =>
  state.active === null && !state.inbox.paused && state.inbox.items.length === 0

const pendingItem = <M extends UIMessage>(
  state: AIState<M>,
  inputId: string,
): InboxItem<M> | undefined => state.inbox.items.find((item) => item.id === inputId)

export function judgeMessage<M extends UIMessage>(
  state: AIState<M>,
  commandId: string,
  request: RequestOf<M, 'message' | 'steer'>,
): Verdict<M> {
  const active = state.active
  if (request.message.id !== commandId) return reject('invalid-command')
  const known =
    pendingItem(state, request.message.id) !== undefined ||
    state.messages.some((message) => message.id === request.message.id)
  if (known) return reject('invalid-command')
  const steers =
    request.action === 'steer' &&
    request.afterStepOf !== null &&
    active?.turnId === request.afterStepOf
  if (steers && active !== null) {
    const changes: ControlChange[] = [
      {
        op: 'inbox.add',
        inputId: request.message.id,
        beforeId: steeringSlot(state.inbox.items, active.turnId),
        generate: true,
        afterStepOf: active.turnId,
      },
    ]
    if (!active.handoff) changes.push({ op: 'turn.handoff', turnId: active.turnId })
    return { changes }
  }
  // With no active turn (or a stale one), steering sends like a message.
  const generate = request.action === 'steer' || request.generate
  if (isIdle(state)) return { admitNow: { passive: !generate } }
  return {
    changes: [
      { op: 'inbox.add', inputId: request.message.id, beforeId: null, generate, afterStepOf: null },
    ],
  }
}

export function judgeQueueEdit<M extends UIMessage>(
  state: AIState<M>,
  request: RequestOf<M, 'queue.edit'>,
): Verdict<M> {
  const item = pendingItem(state, request.message.id)
  if (item === undefined) return reject('not-pending')
  if (item.message.role !== request.message.role) return reject('role-mismatch')
  return { changes: [{ op: 'inbox.edit', inputId: item.id }] }
}

export function judgeQueueMove<M extends UIMessage>(
  state: AIState<M>,
  request: RequestOf<M, 'queue.move'>,
): Verdict<M> {
  if (pendingItem(state, request.inputId) === undefined) return reject('not-pending')
  if (request.beforeId !== null && pendingItem(state, request.beforeId) === undefined)
    return reject('not-pending')
  return {
    changes: [{ op: 'inbox.move', inputId: request.inputId, beforeId: request.beforeId }],
  }
}

export function judgeQueueRemove<M extends UIMessage>(
  state: AIState<M>,
  request: RequestOf<M, 'queue.remove'>,
): Verdict<M> {
  if (pendingItem(state, request.inputId) === undefined) return reject('not-pending')
  return { changes: [{ op: 'inbox.remove', inputId: request.inputId }] }
}

export function judgeQueueSendNow<M extends UIMessage>(
  state: AIState<M>,
  request: RequestOf<M, 'queue.sendNow'>,
): Verdict<M> {
  const active = state.active
  const item = pendingItem(state, request.inputId)
  if (item === undefined) return reject('not-pending')
  if (item.message.role !== 'user') return reject('not-user-input')
  if (request.afterStepOf === null) {
    if (active !== null) return reject('stale-turn')
    const first = state.inbox.items.find((candidate) => candidate.id !== item.id)
    return {
      changes: [
        { op: 'inbox.steer', inputId: item.id, beforeId: first?.id ?? null, afterStepOf: null },
      ],
    }
  }
  if (active?.turnId !== request.afterStepOf) return reject('stale-turn')
  const changes: ControlChange[] = [
    {
      op: 'inbox.steer',
      inputId: item.id,
      beforeId: steeringSlot(state.inbox.items, active.turnId, item.id),
      afterStepOf: active.turnId,
    },
  ]
  if (!active.handoff) changes.push({ op: 'turn.handoff', turnId: active.turnId })
  return { changes }
}
