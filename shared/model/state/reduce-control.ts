import type { UIMessage } from 'ai'
import type { StoredEvent } from '../../log/event.ts'
import type { AIEventPayload } from '../events/ai-events.ts'
import type { ControlRequest } from '../events/control.ts'
import type { ControlChange } from '../events/controller-events.ts'
import { newActiveResponse } from './active-response.ts'
import { type AIState, generationOf, type InboxItem, requestOf } from './ai-state.ts'
import { setId } from './id-map.ts'
import { toTranscript } from './message-types.ts'
import { discardStepCalls } from './reduce-tools.ts'
import { applyToResponseMessage, endTurn } from './response-helpers.ts'

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

function messageOf<M extends UIMessage>(
  state: AIState<M>,
  commandId: string | undefined,
): M | undefined {
  if (commandId === undefined || !Object.hasOwn(state.requests, commandId)) return undefined
  const request = state.requests[commandId]
  return typeof request === 'object' && request !== null && 'message' in request
    ? request.message
    : undefined
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

function applyChange<M extends UIMessage>(
  state: AIState<M>,
  change: ControlChange,
  commandId: string | undefined,
  index: number,
  timestamp: number,
): AIState<M> {
  const items = state.inbox.items
  const find = (inputId: string) => items.find((item) => item.id === inputId)
  switch (change.op) {
    case 'inbox.add': {
      const message = messageOf(state, commandId)
      if (message === undefined || find(change.inputId)) return state
      const item: InboxItem<M> = {
        id: change.inputId,
        message,
        generate: change.generate,
        afterStepOf: change.afterStepOf,
        commandId: commandId as string,
      }
      return {
        ...state,
        inbox: { ...state.inbox, items: insertBefore(items, item, change.beforeId) },
      }
    }
    case 'inbox.edit': {
      const message = messageOf(state, commandId)
      if (message === undefined) return state
      return {
        ...state,
        inbox: {
          ...state.inbox,
          items: items.map((item) =>
            item.id === change.inputId
              ? { ...item, message, commandId: commandId as string }
              : item,
          ),
        },
      }
    }
    case 'inbox.move': {
      const item = find(change.inputId)
      if (item === undefined) return state
      return {
        ...state,
        inbox: { ...state.inbox, items: insertBefore(items, item, change.beforeId) },
      }
    }
    case 'inbox.remove': {
      const rest = items.filter((item) => item.id !== change.inputId)
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
    case 'inbox.steer': {
      const item = find(change.inputId)
      if (item === undefined) return state
      const steering = { ...item, generate: true, afterStepOf: change.afterStepOf }
      return {
        ...state,
        inbox: { ...state.inbox, items: insertBefore(items, steering, change.beforeId) },
      }
    }
    case 'turn.start':
      return {
        ...state,
        active: {
          turnId: change.turnId,
          inputId: change.inputId,
          contextInputIds: change.contextInputIds,
          phase: 'starting',
          responseMessageId: change.responseMessageId,
          step: 0,
          handoff: false,
          requestCount: 0,
          generation: null,
        },
        response: newActiveResponse(change.turnId, change.responseMessageId),
      }
    case 'turn.handoff':
      if (state.active?.turnId !== change.turnId) return state
      return { ...state, active: { ...state.active, handoff: true } }
    case 'turn.stop':
      if (state.active?.turnId !== change.turnId) return state
      return endTurn(state, { stopped: true, frontier: change.frontier })
    case 'turn.retry': {
      if (state.active?.turnId !== change.turnId) return state
      const { error: _error, ...active } = state.active
      const failed = generationOf(active)?.generationId
      // The failed step's calls no longer feed this turn.
      const discarded = failed === undefined ? state : discardStepCalls(state, failed)
      // The failed attempt goes; a request no attempt has served yet stays.
      const generation = active.generation?.status === 'requested' ? active.generation : null
      return {
        ...discarded,
        active: { ...active, phase: 'starting', retryId: change.retryId, generation },
      }
    }
    case 'turn.paused':
      if (state.active?.turnId !== change.turnId) return state
      // A request that never started is cancelled with the rest of the work.
      return {
        ...state,
        active: {
          ...state.active,
          phase: 'paused',
          generation: requestOf(state.active) === null ? state.active.generation : null,
        },
      }
    case 'pause': {
      const active = state.active
      const pausing =
        change.when === 'now' &&
        active !== null &&
        active.phase !== 'failed' &&
        active.phase !== 'paused'
      return {
        ...state,
        inbox: { ...state.inbox, paused: true },
        active: pausing
          ? { ...active, phase: 'pausing', pausedBy: commandId ?? 'pause', pausingSince: timestamp }
          : active,
      }
    }
    case 'resume': {
      const active = state.active
      const held = active !== null && (active.phase === 'paused' || active.phase === 'pausing')
      return {
        ...state,
        inbox: { ...state.inbox, paused: false },
        active: held ? { ...active, phase: 'waiting' } : active,
        // Interrupted tools run again, unless steering takes the turn over.
        tools:
          held && !active.handoff
            ? state.tools.map((tool) =>
                tool.turnId === active.turnId && tool.status === 'interrupted'
                  ? { ...tool, status: 'running' }
                  : tool,
              )
            : state.tools,
      }
    }
    case 'approval.respond': {
      const approval = state.pendingApprovals.find(
        (pending) => pending.approvalId === change.approvalId,
      )
      if (approval === undefined) return state
      const next: AIState<M> = {
        ...state,
        pendingApprovals: state.pendingApprovals.filter((pending) => pending !== approval),
        tools: state.tools.map((tool) =>
          tool.toolCallId === approval.toolCallId && tool.generationId === approval.generationId
            ? { ...tool, status: change.approved ? 'running' : 'denied' }
            : tool,
        ),
      }
      return applyToResponseMessage(next, approval.messageId, index, [
        {
          type: 'tool-approval-response',
          approvalId: change.approvalId,
          approved: change.approved,
          ...(change.reason === undefined ? {} : { reason: change.reason }),
        },
      ])
    }
    case 'input.request':
      if (state.pendingInputs.some((input) => input.inputRequestId === change.inputRequestId))
        return state
      return {
        ...state,
        pendingInputs: [
          ...state.pendingInputs,
          {
            inputRequestId: change.inputRequestId,
            turnId: change.turnId,
            request: change.request,
            status: 'pending',
            ...(change.messageId === undefined ? {} : { messageId: change.messageId }),
            ...(change.generationId === undefined ? {} : { generationId: change.generationId }),
            ...(change.toolCallId === undefined ? {} : { toolCallId: change.toolCallId }),
          },
        ],
      }
    case 'input.respond':
      return {
        ...state,
        pendingInputs: state.pendingInputs.map((input) =>
          input.inputRequestId === change.inputRequestId
            ? { ...input, status: 'answered', value: change.value }
            : input,
        ),
      }
    case 'input.close':
      return {
        ...state,
        pendingInputs: state.pendingInputs.filter(
          (input) => input.inputRequestId !== change.inputRequestId || input.status === 'answered',
        ),
      }
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
