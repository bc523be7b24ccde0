import type { SessionUpdate, StopReason, ToolCallContent } from '@agentclientprotocol/sdk'
import type { UIMessageChunk } from 'ai'

/**
 * `session/update`s of one ACP prompt turn as the UI message chunks of one
 * A2 step: message chunks are text, thought chunks reasoning, and the
 * agent's own tool calls provider-executed calls (announced with their input
 * at `tool_call`, answered when an update says `completed` or `failed`).
 * Plans, modes, commands and usage updates are not part of the message.
 */
export function acpChunker() {
  let open: { kind: 'text' | 'reasoning'; id: string } | undefined
  let blocks = 0
  const announced = new Set<string>()
  const answered = new Set<string>()

  const closeBlock = (): UIMessageChunk[] => {
    if (open === undefined) return []
    const chunk: UIMessageChunk =
      open.kind === 'text'
        ? { type: 'text-end', id: open.id }
        : { type: 'reasoning-end', id: open.id }
    open = undefined
    return [chunk]
  }
  const delta = (kind: 'text' | 'reasoning', text: string): UIMessageChunk[] => {
    const chunks: UIMessageChunk[] = []
    if (open?.kind !== kind) {
      chunks.push(...closeBlock())
      open = { kind, id: `${kind}-${++blocks}` }
      chunks.push(
        kind === 'text'
          ? { type: 'text-start', id: open.id }
          : { type: 'reasoning-start', id: open.id },
      )
    }
    chunks.push(
      kind === 'text'
        ? { type: 'text-delta', id: open.id, delta: text }
        : { type: 'reasoning-delta', id: open.id, delta: text },
    )
    return chunks
  }
  const announce = (toolCallId: string, toolName: string, input: unknown): UIMessageChunk[] => {
    if (announced.has(toolCallId)) return []
    announced.add(toolCallId)
    return [
      ...closeBlock(),
      {
        type: 'tool-input-available',
        toolCallId,
        toolName,
        input: input ?? {},
        providerExecuted: true,
      },
    ]
  }
  const answer = (
    toolCallId: string,
    status: string | null | undefined,
    output: unknown,
    content: ToolCallContent[] | null | undefined,
  ): UIMessageChunk[] => {
    if (!announced.has(toolCallId) || answered.has(toolCallId)) return []
    if (status !== 'completed' && status !== 'failed') return []
    answered.add(toolCallId)
    const result = output ?? textOf(content)
    return status === 'completed'
      ? [
          {
            type: 'tool-output-available',
            toolCallId,
            output: result ?? null,
            providerExecuted: true,
          },
        ]
      : [
          {
            type: 'tool-output-error',
            toolCallId,
            errorText: typeof result === 'string' ? result : JSON.stringify(result ?? 'failed'),
            providerExecuted: true,
          },
        ]
  }

  return {
    /** The chunks an update makes. */
    chunks(update: SessionUpdate): UIMessageChunk[] {
      switch (update.sessionUpdate) {
        case 'agent_message_chunk':
          return update.content.type === 'text' ? delta('text', update.content.text) : []
        case 'agent_thought_chunk':
          return update.content.type === 'text' ? delta('reasoning', update.content.text) : []
        case 'tool_call':
          return [
            ...announce(update.toolCallId, update.name ?? update.title, update.rawInput),
            ...answer(update.toolCallId, update.status, update.rawOutput, update.content),
          ]
        case 'tool_call_update':
          return [
            ...announce(
              update.toolCallId,
              update.name ?? update.title ?? update.toolCallId,
              update.rawInput,
            ),
            ...answer(update.toolCallId, update.status, update.rawOutput, update.content),
          ]
        default:
          return []
      }
    },
    /** Announces a call a permission request names before its `tool_call` came. */
    announce,
    /** Marks a call answered outside the stream (denied by the user: A2 recorded that). */
    settle(toolCallId: string) {
      answered.add(toolCallId)
    },
    /** The chunks that end the step. */
    finish(stopReason: StopReason): UIMessageChunk[] {
      return [
        ...closeBlock(),
        { type: 'finish-step' },
        { type: 'finish', finishReason: finishReasonOf(stopReason) },
      ]
    },
    close: closeBlock,
  }
}

function finishReasonOf(stopReason: StopReason): 'stop' | 'length' | 'content-filter' | 'other' {
  switch (stopReason) {
    case 'end_turn':
      return 'stop'
    case 'max_tokens':
    case 'max_turn_requests':
      return 'length'
    case 'refusal':
      return 'content-filter'
    default:
      return 'other'
  }
}

function textOf(content: ToolCallContent[] | null | undefined): string | undefined {
  const texts = (content ?? []).flatMap((item) =>
    item.type === 'content' && item.content.type === 'text' ? [item.content.text] : [],
  )
  return texts.length > 0 ? texts.join('\n') : undefined
}
