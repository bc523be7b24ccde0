import type { UIMessage } from 'ai'
import type { ControlChange } from '../events/controller-events.ts'
import type { AIState, InboxItem } from './ai-state.ts'

// Accepted changes to the inbox: add, edit, move, remove, and turning a queued
// input into steering. The message of an added or edited item is the one its
// command carried, still in `state.requests` while the command is decided.

type ChangeOf<O extends ControlChange['op']> = Extract<ControlChange, { op: O }>

/** The message the command `commandId` carried, if it is still known. */
export function messageOf<M extends UIMessage>(
  state: AIState<M>,
  commandId: string | undefined,
): M | undefined {
  if (commandId === undefined || !Object.hasOwn(state.requests, commandId)) return undefined
  const request = state.requests[commandId]
  return typeof request === 'object' && request !== null && 'message' in request
    ? request.message
    : undefined
}

function insertBefore<M extends UIMessage>(
  items: readonly InboxItem<M>[],
  item: InboxItem<M>,
  beforeId: string | null,
): InboxItem<M>[] {
  const rest = items.filter((existing) => existing.id !== item.id)
  const at = beforeId === null ? -1 : rest.findIndex((existing) => existing.id === beforeId)
  if (at < 0) return [...rest, item]
  return [...rest.slice(0, at), item, ...rest.slice(at)]
}

const findItem = <M extends UIMessage>(
  state: AIState<M>,
  inputId: string,
): InboxItem<M> | undefined => state.inbox.items.find((item) => item.id === inputId)

const withItems = <M extends UIMessage>(state: AIState<M>, items: InboxItem<M>[]): AIState<M> => ({
  ...state,
  inbox: { ...state.inbox, items },
})

export function addToInbox<M extends UIMessage>(
  state: AIState<M>,
  change: ChangeOf<'inbox.add'>,
  commandId: string | undefined,
): AIState<M> {
  const message = messageOf(state, commandId)
  if (message === undefined || findItem(state, change.inputId)) return state
  const item: InboxItem<M> = {
    id: change.inputId,
    message,
    generate: change.generate,
    afterStepOf: change.afterStepOf,
    commandId: commandId as string,
  }
  return withItems(state, insertBefore(state.inbox.items, item, change.beforeId))
}

export function editInInbox<M extends UIMessage>(
  state: AIState<M>,
  change: ChangeOf<'inbox.edit'>,
  commandId: string | undefined,
): AIState<M> {
  const message = messageOf(state, commandId)
  if (message === undefined) return state
  return withItems(
    state,
    state.inbox.items.map((item) =>
      item.id === change.inputId ? { ...item, message, commandId: commandId as string } : item,
    ),
  )
}

export function moveInInbox<M extends UIMessage>(
  state: AIState<M>,
  change: ChangeOf<'inbox.move'>,
): AIState<M> {
  const item = findItem(state, change.inputId)
  if (item === undefined) return state
  return withItems(state, insertBefore(state.inbox.items, item, change.beforeId))
}

export function removeFromInbox<M extends UIMessage>(
  state: AIState<M>,
  change: ChangeOf<'inbox.remove'>,
): AIState<M> {
  const rest = state.inbox.items.filter((item) => item.id !== change.inputId)
  const active = state.active
  // Removing steering cancels it: once no queued input steers the turn,
  // the turn goes on instead of handing off to nothing.
  const cancelled =
    active?.handoff === true && !rest.some((item) => item.afterStepOf === active.turnId)
  return {
    ...state,
    inbox: { ...state.inbox, items: rest },
    active: cancelled ? { ...active, handoff: false } : active,
  }
}

export function steerFromInbox<M extends UIMessage>(
  state: AIState<M>,
  change: ChangeOf<'inbox.steer'>,
): AIState<M> {
  const item = findItem(state, change.inputId)
  if (item === undefined) return state
  const steering = { ...item, generate: true, afterStepOf: change.afterStepOf }
  return withItems(state, insertBefore(state.inbox.items, steering, change.beforeId))
}
