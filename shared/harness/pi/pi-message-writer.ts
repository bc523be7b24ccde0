import type {
  AssistantMessage,
  AssistantMessageEvent,
  StopReason,
  ToolCall,
  Usage,
} from '@mariozechner/pi-ai'
import type { TextStreamPart, ToolSet } from 'ai'

type Part = TextStreamPart<ToolSet>
type PartOf<T extends Part['type']> = Extract<Part, { type: T }>

/** The message being written, its open content blocks by part ID, and where its events go. */
interface Draft {
  message: AssistantMessage
  emit(event: AssistantMessageEvent): void
  snapshot(): AssistantMessage
  /** The index of the block a part ID opened (`t`, `r`, `c` and the ID). */
  blocks: Map<string, number>
  open(key: string, block: AssistantMessage['content'][number]): number
}

/**
 * Pi's assistant message, written from the AI SDK's stream parts of one
 * model call: each part changes `message` and emits Pi's event for it, with
 * a copy of the message so far (`partial`), as Pi's own providers do.
 */
export function piMessageWriter(
  message: AssistantMessage,
  emit: (event: AssistantMessageEvent) => void,
) {
  const blocks = new Map<string, number>()
  const draft: Draft = {
    message,
    emit,
    snapshot: () => structuredClone(message),
    blocks,
    open(key, block) {
      const index = message.content.push(block) - 1
      blocks.set(key, index)
      return index
    },
  }
  return {
    snapshot: draft.snapshot,
    /** Writes one part; an error part or an abort throws, which fails the call. */
    write(part: Part, signal: AbortSignal | undefined): void {
      switch (part.type) {
        case 'text-start':
        case 'text-delta':
        case 'text-end':
          writeText(draft, part)
          return
        case 'reasoning-start':
        case 'reasoning-delta':
        case 'reasoning-end':
          writeReasoning(draft, part)
          return
        case 'tool-input-start':
        case 'tool-input-delta':
        case 'tool-call':
          writeToolCall(draft, part)
          return
        case 'finish':
          message.stopReason = stopReasonOf(part.finishReason)
          message.usage = usageOf(part.totalUsage)
          return
        case 'error':
          throw part.error
        case 'abort':
          throw signal?.reason ?? new Error('aborted')
      }
    },
  }
}

function writeText(draft: Draft, part: PartOf<'text-start' | 'text-delta' | 'text-end'>): void {
  const { message, emit, snapshot, blocks, open } = draft
  const key = `t${part.id}`
  switch (part.type) {
    case 'text-start':
      emit({
        type: 'text_start',
        contentIndex: open(key, { type: 'text', text: '' }),
        partial: snapshot(),
      })
      return
    case 'text-delta': {
      const index = blocks.get(key) ?? open(key, { type: 'text', text: '' })
      ;(message.content[index] as { text: string }).text += part.text
      emit({ type: 'text_delta', contentIndex: index, delta: part.text, partial: snapshot() })
      return
    }
    case 'text-end': {
      const index = blocks.get(key)
      if (index === undefined) return
      const block = message.content[index] as { text: string }
      emit({ type: 'text_end', contentIndex: index, content: block.text, partial: snapshot() })
      return
    }
  }
}

function writeReasoning(
  draft: Draft,
  part: PartOf<'reasoning-start' | 'reasoning-delta' | 'reasoning-end'>,
): void {
  const { message, emit, snapshot, blocks, open } = draft
  const key = `r${part.id}`
  switch (part.type) {
    case 'reasoning-start':
      emit({
        type: 'thinking_start',
        contentIndex: open(key, { type: 'thinking', thinking: '' }),
        partial: snapshot(),
      })
      return
    case 'reasoning-delta': {
      const index = blocks.get(key) ?? open(key, { type: 'thinking', thinking: '' })
      ;(message.content[index] as { thinking: string }).thinking += part.text
      emit({ type: 'thinking_delta', contentIndex: index, delta: part.text, partial: snapshot() })
      return
    }
    case 'reasoning-end': {
      const index = blocks.get(key)
      if (index === undefined) return
      const block = message.content[index] as { thinking: string }
      emit({
        type: 'thinking_end',
        contentIndex: index,
        content: block.thinking,
        partial: snapshot(),
      })
      return
    }
  }
}

/** A tool call: opened by its input's start (or by the call itself), ended with its arguments. */
function writeToolCall(
  draft: Draft,
  part: PartOf<'tool-input-start' | 'tool-input-delta' | 'tool-call'>,
): void {
  const { message, emit, snapshot, blocks, open } = draft
  switch (part.type) {
    case 'tool-input-start':
      emit({
        type: 'toolcall_start',
        contentIndex: open(`c${part.id}`, {
          type: 'toolCall',
          id: part.id,
          name: part.toolName,
          arguments: {},
        }),
        partial: snapshot(),
      })
      return
    case 'tool-input-delta': {
      const index = blocks.get(`c${part.id}`)
      if (index === undefined) return
      emit({ type: 'toolcall_delta', contentIndex: index, delta: part.delta, partial: snapshot() })
      return
    }
    case 'tool-call': {
      let index = blocks.get(`c${part.toolCallId}`)
      if (index === undefined) {
        index = open(`c${part.toolCallId}`, {
          type: 'toolCall',
          id: part.toolCallId,
          name: part.toolName,
          arguments: {},
        })
        emit({ type: 'toolcall_start', contentIndex: index, partial: snapshot() })
      }
      const call = message.content[index] as ToolCall
      call.arguments = (part.input ?? {}) as Record<string, unknown>
      emit({
        type: 'toolcall_end',
        contentIndex: index,
        toolCall: { ...call },
        partial: snapshot(),
      })
      return
    }
  }
}

function stopReasonOf(reason: string | undefined): StopReason {
  if (reason === 'tool-calls') return 'toolUse'
  if (reason === 'length') return 'length'
  if (reason === 'error') return 'error'
  return 'stop'
}

/** A message's usage before the call reports any. */
export function emptyUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  }
}

function usageOf(usage: {
  inputTokens?: number | undefined
  outputTokens?: number | undefined
  totalTokens?: number | undefined
  inputTokenDetails?: {
    cacheReadTokens?: number | undefined
    cacheWriteTokens?: number | undefined
  }
}): Usage {
  const input = usage.inputTokens ?? 0
  const output = usage.outputTokens ?? 0
  return {
    ...emptyUsage(),
    input,
    output,
    cacheRead: usage.inputTokenDetails?.cacheReadTokens ?? 0,
    cacheWrite: usage.inputTokenDetails?.cacheWriteTokens ?? 0,
    totalTokens: usage.totalTokens ?? input + output,
  }
}
