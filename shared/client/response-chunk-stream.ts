import type { UIMessage, UIMessageChunk } from 'ai'
import { inputs } from '../model/inputs/inputs.ts'
import type { AIState } from '../model/state/ai-state.ts'
import type { ClientSession } from './client-session.ts'
import { messageChunks } from './message-chunks.ts'

export interface ResponseTarget {
  responseMessageId: string
  /** The input whose turn writes the response; while it waits in the inbox, so does the stream. */
  inputId?: string
  /** The message as the reader already has it (a chat continuing after its approval answers). */
  from?: UIMessage
  /** The index of the push that started it: until state reaches it, its absence means nothing. */
  after?: number
}

/**
 * One response of a session as a UI message chunk stream, for an AI SDK
 * `Chat`: `start`, the message's changes as chunks while its turn runs
 * (from confirmed state, so it survives reconnects), then `finish`, or
 * `error` when the model call failed. Aborting stops the turn at the
 * frontier this stream delivered (or removes the input if it is still
 * queued), which is what the chat's Stop button means.
 *
 * @example
 * const stream = responseChunkStream(session, { responseMessageId: responseIdFor(message.id), inputId: message.id }, signal)
 */
export function responseChunkStream(
  session: ClientSession,
  target: ResponseTarget,
  signal: AbortSignal | undefined,
): ReadableStream<UIMessageChunk> {
  let shown: UIMessage | undefined = target.from
  let started = false
  let frontier = 0
  let unsubscribe = (): void => {}
  let done = false
  return new ReadableStream<UIMessageChunk>({
    start(controller) {
      const finish = (last?: UIMessageChunk): void => {
        if (done) return
        done = true
        unsubscribe()
        signal?.removeEventListener('abort', abort)
        if (last) controller.enqueue(last)
        controller.close()
      }
      const update = (): void => {
        if (done) return
        const { state, index } = session.getSnapshot().confirmed
        const message = state.messages.findLast((m) => m.id === target.responseMessageId)
        if (message) {
          if (!started) controller.enqueue({ type: 'start', messageId: target.responseMessageId })
          started = true
          for (const chunk of messageChunks(shown, message as UIMessage)) controller.enqueue(chunk)
          shown = structuredClone(message) as UIMessage
          frontier = index
        }
        // Until state reaches the push that started this stream, what it says is old news.
        if (index < (target.after ?? 0)) return
        const active = state.active
        if (active?.responseMessageId === target.responseMessageId) {
          if (active.phase === 'failed') {
            finish({ type: 'error', errorText: active.error ?? 'The model call failed' })
          } else if (awaitsUser(state, active.turnId)) {
            // As with the SDK's own streams: the response pauses for approvals, and
            // answering them (addToolApprovalResponse) continues it in a new request.
            finish({ type: 'finish' })
          }
          return
        }
        if (message || !waiting(state, target.inputId)) finish({ type: 'finish' })
      }
      function abort(): void {
        if (done) return
        const { state } = session.getSnapshot().confirmed
        const active = state.active
        if (active?.responseMessageId === target.responseMessageId) {
          void session.push(...inputs.stop({ turnId: active.turnId, frontier })).catch(() => {})
        } else if (target.inputId && state.inbox.items.some((item) => item.id === target.inputId)) {
          void session.queue.remove(target.inputId).catch(() => {})
        }
        done = true
        unsubscribe()
        controller.close()
      }
      if (signal?.aborted) return abort()
      signal?.addEventListener('abort', abort, { once: true })
      unsubscribe = session.subscribe(update)
      update()
    },
    cancel() {
      done = true
      unsubscribe()
    },
  })
}

/** The turn waits only for the user: approvals asked, nothing running. */
function awaitsUser(state: AIState, turnId: string): boolean {
  return (
    state.active?.phase === 'waiting' &&
    state.pendingApprovals.some((approval) => approval.turnId === turnId) &&
    !state.tools.some((tool) => tool.turnId === turnId && tool.status === 'running')
  )
}

/** The input has not had its turn yet: undecided, queued, or admitted but not started. */
function waiting(state: AIState, inputId: string | undefined): boolean {
  if (inputId === undefined) return false
  return (
    Object.hasOwn(state.requests, inputId) ||
    state.inbox.items.some((item) => item.id === inputId) ||
    state.active?.inputId === inputId
  )
}
