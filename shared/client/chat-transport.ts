import type { ChatTransport, UIMessage, UIMessageChunk } from 'ai'
import { responseIdFor } from '../model/ids/ids.ts'
import { inputs } from '../model/inputs/inputs.ts'
import { type AgentClient, type AgentClientOptions, createAgentClient } from './agent-client.ts'
import type { ClientSession } from './client-session.ts'
import { responseChunkStream } from './response-chunk-stream.ts'

export type AgentChatTransportOptions = { client: AgentClient } | AgentClientOptions

/**
 * The AI SDK's `ChatTransport` for an a2-aws agent, so an unchanged
 * `useChat()` or `Chat` talks to it. The chat ID is the session ID. Sends
 * are durable pushes (the turn runs even if the page closes), the response
 * streams from the session's log, `stop()` stops the turn at what the chat
 * showed, `regenerate()` retries a failed turn, and `reconnectToStream`
 * replays the active response from the log (`resumeStreamIsReplay`).
 *
 * @example
 * const chat = new Chat({ id: sessionId, messages: initial.state.messages, transport: new AgentChatTransport({ api: '/api/agent' }) })
 */
export class AgentChatTransport<M extends UIMessage = UIMessage> implements ChatTransport<M> {
  readonly resumeStreamIsReplay = true
  readonly #client: AgentClient
  readonly #owned: boolean

  constructor(options: AgentChatTransportOptions) {
    this.#owned = !('client' in options)
    this.#client = 'client' in options ? options.client : createAgentClient(options)
  }

  sendMessages: ChatTransport<M>['sendMessages'] = async (options) => {
    const session = this.#client.session(options.chatId)
    if (options.trigger === 'regenerate-message') {
      await caughtUp(session)
      const active = session.getSnapshot().confirmed.state.active
      if (active?.phase !== 'failed') {
        throw new Error('Only a failed response can be regenerated: retry() reruns its model call')
      }
      const [retry] = await session.retry()
      return responseChunkStream(
        session,
        {
          responseMessageId: active.responseMessageId,
          inputId: active.inputId,
          after: retry?.index,
        },
        options.abortSignal,
      )
    }
    const message = options.messages.at(-1)
    if (message?.role === 'assistant')
      return this.#answerApprovals(session, message, options.abortSignal)
    if (message?.role !== 'user') throw new Error('sendMessages expects a new user message last')
    const [stored] = await session.push(...inputs.message(message))
    return responseChunkStream(
      session,
      { responseMessageId: responseIdFor(message.id), inputId: message.id, after: stored?.index },
      options.abortSignal,
    )
  }

  reconnectToStream: ChatTransport<M>['reconnectToStream'] = async (options) => {
    const session = this.#client.session(options.chatId)
    await caughtUp(session, options.abortSignal)
    const active = session.getSnapshot().confirmed.state.active
    if (!active || active.phase === 'failed') return null
    return responseChunkStream(
      session,
      { responseMessageId: active.responseMessageId, inputId: active.inputId },
      options.abortSignal,
    ) as ReadableStream<UIMessageChunk>
  }

  /**
   * `addToolApprovalResponse()` with `sendAutomaticallyWhen` sends the
   * assistant message back with its answered approvals: push each answer as
   * an approval command and go on streaming that response from where the
   * chat has it.
   */
  async #answerApprovals(
    session: ClientSession,
    message: M,
    signal: AbortSignal | undefined,
  ): Promise<ReadableStream<UIMessageChunk>> {
    await caughtUp(session, signal)
    const pending = session.getSnapshot().confirmed.state.pendingApprovals
    const answers = message.parts.flatMap((part) => {
      const approval = (part as { approval?: { id: string; approved?: boolean; reason?: string } })
        .approval
      const request = pending.find((item) => item.approvalId === approval?.id)
      if (!request || approval?.approved === undefined) return []
      return inputs.approval(request, {
        approved: approval.approved,
        ...(approval.reason === undefined ? {} : { reason: approval.reason }),
      })
    })
    const stored = answers.length > 0 ? await session.push(...answers) : []
    return responseChunkStream(
      session,
      {
        responseMessageId: message.id,
        from: structuredClone(message),
        after: stored.at(-1)?.index,
      },
      signal,
    )
  }

  close(): void {
    if (this.#owned) this.#client.dispose()
  }
}

/**
 * Resolves once the session's stream is open and has delivered everything the
 * log held when it connected (the server's `: head N` marker).
 */
function caughtUp(session: ClientSession, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      unsubscribe()
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const check = (): void => {
      if (session.getSnapshot().caughtUp) done()
    }
    const unsubscribe = session.subscribe(check)
    signal?.addEventListener('abort', done, { once: true })
    check()
  })
}
