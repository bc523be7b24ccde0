import type { UIMessage } from 'ai'
import type { StoredEvent } from '../../log/event.ts'
import type { AIEventPayload } from '../events/ai-events.ts'
import type { ControlRequest } from '../events/control.ts'
import type { ControlChange } from '../events/controller-events.ts'
import type { AIState } from './ai-state.ts'
import {
  answerInputRequest,
  closeInputRequest,
  openInputRequest,
  respondToApproval,
} from './change-awaits.ts'
import {
  addToInbox,
  editInInbox,
  messageOf,
  moveInInbox,
  removeFromInbox,
  steerFromInbox,
} from './change-inbox.ts'
import { markTurnPaused, pauseSession, resumeSession, retryTurn, startTurn } from './change-turn.ts'
import { setId } from './id-map.ts'
import { toTranscript } from './message-types.ts'
import { endTurn } from './response-helpers.ts'

// Commands, admissions, accepted changes and receipts. The controller has
// already decided; these only apply what it wrote.

export function reduceRequested<M extends UIMessage>(
  state: AIState<M>,
  event: StoredEvent<'ai.control.requested', ControlRequest<M>>,
): AIState<M> {
  const requests = { ...state.requests }
  setId(requests, event.id, event.payload)
  return { ...state, requests }
}

export function reduceMessageCreated<M extends UIMessage>(
  state: AIState<M>,
  payload: AIEventPayload<'ai.message.created', M>,
): AIState<M> {
  const queued = state.inbox.items.find((item) => item.id === payload.inputId)
  const message = queued?.message ?? messageOf(state, payload.commandId)
  if (message === undefined) return state
  if (state.messages.some((existing) => existing.id === payload.inputId)) return state
  return {
    ...state,
    messages: [...state.messages, toTranscript(message)],
    inbox: queued
      ? { ...state.inbox, items: state.inbox.items.filter((item) => item.id !== payload.inputId) }
      : state.inbox,
  }
}

function applyChange<M extends UIMessage>(
  state: AIState<M>,
  change: ControlChange,
  commandId: string | undefined,
  index: number,
  timestamp: number,
): AIState<M> {
  switch (change.op) {
    case 'inbox.add':
      return addToInbox(state, change, commandId)
    case 'inbox.edit':
      return editInInbox(state, change, commandId)
    case 'inbox.move':
      return moveInInbox(state, change)
    case 'inbox.remove':
      return removeFromInbox(state, change)
    case 'inbox.steer':
      return steerFromInbox(state, change)
    case 'turn.start':
      return startTurn(state, change)
    case 'turn.handoff':
      if (state.active?.turnId !== change.turnId) return state
      return { ...state, active: { ...state.active, handoff: true } }
    case 'turn.stop':
      if (state.active?.turnId !== change.turnId) return state
      return endTurn(state, { stopped: true, frontier: change.frontier })
    case 'turn.retry':
      return retryTurn(state, change)
    case 'turn.paused':
      return markTurnPaused(state, change)
    case 'pause':
      return pauseSession(state, change, commandId, timestamp)
    case 'resume':
      return resumeSession(state)
    case 'approval.respond':
      return respondToApproval(state, change, index)
    case 'input.request':
      return openInputRequest(state, change)
    case 'input.respond':
      return answerInputRequest(state, change)
    case 'input.close':
      return closeInputRequest(state, change)
  }
}

export function reduceCommitted<M extends UIMessage>(
  state: AIState<M>,
  payload: AIEventPayload<'ai.control.committed', M>,
  index: number,
  timestamp: number,
): AIState<M> {
  let next = state
  for (const change of payload.changes)
    next = applyChange(next, change, payload.commandId, index, timestamp)
  return next
}

// Server-side commands answer the runtime, not a user.
const NOT_USER_COMMANDS = new Set(['requestInput', 'toolResult'])

export function reduceDecided<M extends UIMessage>(
  state: AIState<M>,
  payload: AIEventPayload<'ai.control.decided', M>,
): AIState<M> {
  const requests = { ...state.requests }
  if (Object.hasOwn(requests, payload.commandId)) delete requests[payload.commandId]
  const receipt = NOT_USER_COMMANDS.has(payload.action)
    ? state.receipt
    : {
        commandId: payload.commandId,
        action: payload.action,
        outcome: payload.outcome,
        ...(payload.reason === undefined ? {} : { reason: payload.reason }),
      }
  return { ...state, requests, receipt }
}
