import type { UIMessage, UIMessageChunk } from 'ai'
import {
  applyToResponse,
  closeStoppedResponse,
  emptyResponse,
  responseAt,
  truncateResponse,
} from './active-response.ts'
import type { AIState, ToolRecord } from './ai-state.ts'
import { applyUIMessageChunks, emptyCursor } from './apply-chunks.ts'
import type { TranscriptMessage } from './message-types.ts'
import { fromTranscript, toTranscript } from './message-types.ts'

// Changes to the active response message. They touch only the response's
// slot in `messages` (found by its stored position), never the rest.

function replaceAt<T>(list: readonly T[], index: number, value: T): T[] {
  const next = list.slice()
  next[index] = value
  return next
}

/** Applies chunks to the active response, creating the message on first use. */
export function applyToActiveResponse<M extends UIMessage>(
  state: AIState<M>,
  index: number,
  chunks: readonly UIMessageChunk[],
): AIState<M> {
  let response = state.response
  if (response === null) return state
  let messages = state.messages
  if (response.position < 0) {
    messages = [...messages, emptyResponse<TranscriptMessage<M>>(response.messageId)]
    response = { ...response, position: messages.length - 1 }
  }
  const current = fromTranscript(messages[response.position] as TranscriptMessage<M>)
  const applied = applyToResponse(response, current, index, chunks)
  return {
    ...state,
    messages: replaceAt(messages, response.position, toTranscript(applied.message)),
    response: applied.response,
  }
}

/** Applies chunks to a message that is not (or no longer) the active response. */
function applyToMessage<M extends UIMessage>(
  state: AIState<M>,
  messageId: string,
  chunks: readonly UIMessageChunk[],
): AIState<M> {
  const position = state.messages.findIndex((message) => message.id === messageId)
  if (position < 0) return state
  const current = fromTranscript(state.messages[position] as TranscriptMessage<M>)
  const { message } = applyUIMessageChunks(current, emptyCursor(), chunks)
  return {
    ...state,
    messages: replaceAt(state.messages, position, toTranscript(message)),
  }
}

/** Applies chunks to `messageId`: journaled when it is the active response. */
export function applyToResponseMessage<M extends UIMessage>(
  state: AIState<M>,
  messageId: string,
  index: number,
  chunks: readonly UIMessageChunk[],
): AIState<M> {
  if (state.response?.messageId === messageId) return applyToActiveResponse(state, index, chunks)
  return applyToMessage(state, messageId, chunks)
}

/** Starts a step: an unsuccessful previous attempt's parts leave the response. */
export function beginStep<M extends UIMessage>(state: AIState<M>, index: number): AIState<M> {
  const response = state.response
  if (response === null) return state
  if (response.position < 0) {
    return {
      ...state,
      response: { ...response, stepStart: 0, uncommittedStep: false, cursor: emptyCursor() },
    }
  }
  const current = fromTranscript(state.messages[response.position] as TranscriptMessage<M>)
  if (!response.uncommittedStep) {
    return {
      ...state,
      response: { ...response, stepStart: current.parts.length, cursor: emptyCursor() },
    }
  }
  const cut = truncateResponse(response, current, index, response.stepStart)
  return {
    ...state,
    messages: replaceAt(state.messages, response.position, toTranscript(cut.message)),
    response: { ...cut.response, uncommittedStep: false },
  }
}

const TERMINAL: ReadonlySet<ToolRecord['status']> = new Set(['completed', 'failed', 'denied'])

export const isTerminalTool = (tool: ToolRecord): boolean => TERMINAL.has(tool.status)

/**
 * Ends the active turn. With `frontier`, the response rewinds to what the
 * log held at that index and is closed as a stopped response; with
 * `stopped` alone it is closed where it is. A stopped response is in
 * `stoppedResponseIds` even when nothing of it was left (Stop before the
 * first token): it leaves the transcript, and a UI still marks the turn.
 * Tool work without a terminal result stays in `tools` as `cancelled`
 * until it settles.
 */
export function endTurn<M extends UIMessage>(
  state: AIState<M>,
  options: { stopped: boolean; frontier?: number | null },
): AIState<M> {
  const active = state.active
  if (active === null) return state
  let messages = state.messages
  let stoppedResponseIds = state.stoppedResponseIds
  const response = state.response
  if (options.stopped) stoppedResponseIds = [...stoppedResponseIds, active.responseMessageId]
  if (options.stopped && response !== null && response.position >= 0) {
    const current = fromTranscript(messages[response.position] as TranscriptMessage<M>)
    const seen =
      options.frontier === null || options.frontier === undefined
        ? current
        : responseAt<M>(response, options.frontier)
    const closed = closeStoppedResponse(seen)
    // Nothing of it left: no empty message stays in the transcript.
    messages =
      closed.parts.length === 0
        ? messages.filter((_, position) => position !== response.position)
        : replaceAt(messages, response.position, toTranscript(closed))
  }
  const tools: ToolRecord[] = []
  for (const tool of state.tools) {
    if (tool.turnId !== active.turnId) tools.push(tool)
    // Only work that may still be running has to settle; interrupted calls
    // and calls never approved have none.
    else if (tool.status === 'running' || tool.status === 'cancelled')
      tools.push({ ...tool, status: 'cancelled' })
  }
  return {
    ...state,
    messages,
    stoppedResponseIds,
    active: null,
    response: null,
    tools,
    pendingApprovals: state.pendingApprovals.filter(
      (approval) => approval.turnId !== active.turnId,
    ),
    pendingInputs: state.pendingInputs.filter(
      (input) => input.status === 'answered' || input.turnId !== active.turnId,
    ),
  }
}
