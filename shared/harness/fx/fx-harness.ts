import type {
  ContentBlock,
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from '@agentclientprotocol/sdk'
import type { UIMessage, UIMessageChunk } from 'ai'
import type { Harness, HarnessStepContext } from '../../agent/harness/harness.ts'
import type { HarnessAdapter } from '../../agent/harness/harness-options.ts'
import { messageOf } from '../../log/message-of.ts'
import { acpChunker } from './acp-chunks.ts'
import { type AcpConnection, openAcpConnection } from './acp-connection.ts'
import type { FxHarnessOptions } from './fx-harness-options.ts'

/**
 * FX's loop, or any agent that speaks the Agent Client Protocol, as
 * `agent({ harness })` takes it: A2 runs the agent's process (`command`,
 * default `fx acp`) through `@agentclientprotocol/sdk` (an optional peer,
 * loaded on the first FX step: install it). One ACP prompt turn is one
 * durable generation; the agent runs its own tools, reported as
 * provider-executed calls, and its permission requests wait for the user's
 * answer in the log. Each agent made with it runs its own processes.
 *
 * @example
 * import { agent } from 'a2-aws/ai/server'
 * import { fxHarness } from 'a2-aws/harness/fx'
 *
 * export const coder = agent({
 *   name: 'coder',
 *   model: 'openai/gpt-5.6-terra',
 *   harness: fxHarness({ cwd: '/srv/repo' }),
 * })
 */
export function fxHarness(options: FxHarnessOptions = {}): HarnessAdapter {
  // A2 reads the settings off the adapter; FX's loop runs its own steps and context.
  return { type: 'fx', generation: options.generation, create: () => fxLoop(options) }
}

/**
 * FX's loop, or any ACP agent, behind the port: one A2 step is one whole
 * ACP prompt turn (`session/prompt`) of the agent's process, which runs its
 * own model calls and tools. Its `session/update`s stream as the step's
 * progress (text, reasoning, its tool calls as provider-executed calls with
 * their results), its `session/request_permission` is an A2 approval that
 * waits for the user's answer in the log, and the step's signal (Stop,
 * Pause now, a lost claim) is ACP's `session/cancel`. One agent process and
 * ACP session per A2 session and process; a fresh process (after a crash,
 * on another Lambda) starts a new ACP session and hands it the conversation
 * so far from the log.
 */
function fxLoop(options: FxHarnessOptions): Harness {
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS
  const connections = new Map<string, Promise<AcpConnection>>()
  const timers = new Map<string, ReturnType<typeof setTimeout>>()
  const connectionFor = (sessionId: string): Promise<AcpConnection> => {
    let connection = connections.get(sessionId)
    if (connection === undefined) {
      connection = openAcpConnection(options)
      connections.set(sessionId, connection)
      connection.then(
        (open) => open.closed.then(() => connections.delete(sessionId)),
        () => connections.delete(sessionId),
      )
    }
    return connection
  }
  return {
    type: 'fx',
    // The agent's calls are its own (provider-executed): nothing for A2 to check.
    validatesToolInput: true,
    tools: {},
    compactsByDefault: false,
    async step(context) {
      const { sessionId } = context
      clearTimeout(timers.get(sessionId))
      const connection = await connectionFor(sessionId)
      // A cancelled turn ends before the next one starts (ACP: one turn at a time).
      await connection.idle
      clearTimeout(timers.get(sessionId))
      connection.hold(true)
      const stream = promptTurn(connection, context)
      connection.idle.then(() => {
        if (connection.turn !== undefined) return
        connection.hold(false)
        const timer = setTimeout(() => {
          connections.delete(sessionId)
          connection.close()
        }, idleMs)
        timer.unref()
        timers.set(sessionId, timer)
      })
      return { stream }
    },
    close() {
      for (const timer of timers.values()) clearTimeout(timer)
      timers.clear()
      for (const connection of connections.values())
        connection.then(
          (open) => open.close(),
          () => undefined,
        )
      connections.clear()
    },
  }
}

const DEFAULT_IDLE_MS = 5 * 60 * 1000

/** One prompt turn as the step's chunks, in the order the lane consumes them. */
function promptTurn(connection: AcpConnection, context: HarnessStepContext) {
  const channel = chunkChannel()
  const chunker = acpChunker()
  const { signal } = context
  const prompt = promptOf(connection, context)
  let endTurn: () => void = () => {}
  connection.idle = new Promise((resolve) => {
    endTurn = resolve
  })
  channel.push({ type: 'start', messageId: context.event.payload.responseMessageId })
  channel.push({ type: 'start-step' })
  const cancel = () => {
    connection.agent
      .notify('session/cancel', { sessionId: connection.acpSessionId })
      .catch(() => undefined)
  }
  signal.addEventListener('abort', cancel, { once: true })
  connection.turn = {
    update(update) {
      channel.push(...chunker.chunks(update))
    },
    async permission(request) {
      return permissionOf(request, context, channel, chunker)
    },
  }
  for (const id of prompt.ids) connection.sent.add(id)
  connection.agent
    .request('session/prompt', { sessionId: connection.acpSessionId, prompt: prompt.blocks })
    .then(
      (response) => channel.push(...chunker.finish(response.stopReason)),
      (error: unknown) =>
        channel.push(...chunker.close(), {
          type: 'error',
          errorText: messageOf(error),
        }),
    )
    .finally(() => {
      signal.removeEventListener('abort', cancel)
      connection.turn = undefined
      channel.end()
      endTurn()
    })
  return channel.chunks()
}

/**
 * The agent's permission request as an A2 approval: the call is recorded
 * first (its `tool-input-available` consumed by the lane), then
 * `ai.approval.requested`, and the answer is the user's from the log. A
 * step that ends while it waits (Stop, Pause now) answers `cancelled`.
 */
async function permissionOf(
  request: RequestPermissionRequest,
  context: HarnessStepContext,
  channel: ReturnType<typeof chunkChannel>,
  chunker: ReturnType<typeof acpChunker>,
): Promise<RequestPermissionResponse> {
  const call = request.toolCall
  const toolName = call.name ?? call.title ?? call.toolCallId
  try {
    await channel.pushed(...chunker.announce(call.toolCallId, toolName, call.rawInput))
    const decision = await context.approvals.request({
      toolCallId: call.toolCallId,
      toolName,
      input: call.rawInput ?? {},
    })
    const option = decision.approved
      ? optionOf(request.options, ['allow_once', 'allow_always'])
      : optionOf(request.options, ['reject_once', 'reject_always'])
    // A denial is A2's record of the call; what the agent reports after it is not.
    if (!decision.approved) chunker.settle(call.toolCallId)
    return option === undefined
      ? { outcome: { outcome: 'cancelled' } }
      : { outcome: { outcome: 'selected', optionId: option.optionId } }
  } catch {
    return { outcome: { outcome: 'cancelled' } }
  }
}

function optionOf(
  options: readonly PermissionOption[],
  kinds: readonly PermissionOption['kind'][],
): PermissionOption | undefined {
  for (const kind of kinds) {
    const option = options.find((candidate) => candidate.kind === kind)
    if (option) return option
  }
  return undefined
}

/**
 * What the turn sends: the turn's inputs this ACP session has not had (all
 * of them again when a stopped or failed attempt is run again), led, in a
 * fresh ACP session of a conversation with history, by that history as text.
 */
function promptOf(
  connection: AcpConnection,
  context: HarnessStepContext,
): { blocks: ContentBlock[]; ids: string[] } {
  const messages = context.messages as UIMessage[]
  const inputs = new Set(context.turnInputIds)
  let split = messages.length
  while (split > 0 && inputs.has((messages[split - 1] as UIMessage).id)) split--
  const turn = messages.slice(split)
  const unsent = turn.filter((message) => !connection.sent.has(message.id))
  const sending = unsent.length > 0 ? unsent : turn
  const blocks: ContentBlock[] = []
  const history = messages.slice(0, split).filter((message) => !connection.sent.has(message.id))
  if (connection.sent.size === 0 && history.length > 0) {
    blocks.push({
      type: 'text',
      text: `The conversation so far:\n${history
        .map((message) => `${message.role}: ${textOf(message)}`)
        .join('\n')}`,
    })
  }
  for (const message of sending) blocks.push({ type: 'text', text: textOf(message) })
  if (blocks.length === 0) blocks.push({ type: 'text', text: 'Continue.' })
  return { blocks, ids: [...history, ...sending].map((message) => message.id) }
}

function textOf(message: UIMessage): string {
  return message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('')
}

/**
 * The step's chunks as an async iterable the lane pulls: `pushed()` settles
 * once the lane has asked for the chunk after the last one pushed, that is,
 * once it has written what they made due (the call an approval is for).
 */
function chunkChannel() {
  const queue: UIMessageChunk[] = []
  const waiters = new Map<UIMessageChunk, () => void>()
  let wake: (() => void) | undefined
  let ended = false
  let gone = false
  const push = (...chunks: UIMessageChunk[]) => {
    if (gone || ended) return
    queue.push(...chunks)
    wake?.()
  }
  return {
    push,
    pushed(...chunks: UIMessageChunk[]): Promise<void> {
      const last = chunks.at(-1)
      if (last === undefined || gone || ended) return Promise.resolve()
      const done = new Promise<void>((resolve) => waiters.set(last, resolve))
      push(...chunks)
      return done
    },
    end() {
      ended = true
      wake?.()
    },
    async *chunks(): AsyncGenerator<UIMessageChunk> {
      try {
        for (;;) {
          const chunk = queue.shift()
          if (chunk !== undefined) {
            yield chunk
            waiters.get(chunk)?.()
            continue
          }
          if (ended) return
          await new Promise<void>((resolve) => {
            wake = resolve
          })
          wake = undefined
        }
      } finally {
        gone = true
        for (const resolve of waiters.values()) resolve()
      }
    },
  }
}
