import type {
  AssistantMessage,
  ImageContent,
  Message,
  TextContent,
  ToolResultMessage,
  Usage,
} from '@mariozechner/pi-ai'
import type { ModelMessage } from 'ai'

// A2's prompt (the AI SDK's model messages) as Pi's loop holds it, and back.
// Pi's messages carry less than the AI SDK's (no provider metadata, no
// files), so a message Pi's hooks leave as it was goes back to the model as
// A2 built it: `originals` remembers each Pi message's source.

/** Pi's messages for A2's model messages, each remembered with its source. */
export function piMessagesOf(
  messages: readonly ModelMessage[],
  originals: WeakMap<object, ModelMessage>,
): { systemPrompt: string | undefined; messages: Message[] } {
  const out: Message[] = []
  const system: string[] = []
  for (const message of messages) {
    if (message.role === 'system') {
      system.push(message.content)
      continue
    }
    const converted = piMessagesFor(message)
    // A Pi tool's result goes to the model as Pi's content, not as A2's stored JSON.
    const asPi = converted.some(
      (result) => result.role === 'toolResult' && isPiResult(result.details),
    )
    for (const piMessage of converted) {
      if (!asPi) originals.set(piMessage, message)
      out.push(piMessage)
    }
  }
  return { systemPrompt: system.length > 0 ? system.join('\n\n') : undefined, messages: out }
}

const zeroUsage = (): Usage => ({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
})

function piMessagesFor(message: Exclude<ModelMessage, { role: 'system' }>): Message[] {
  const timestamp = 0
  switch (message.role) {
    case 'user': {
      if (typeof message.content === 'string') {
        return [{ role: 'user', content: message.content, timestamp }]
      }
      const content = message.content.flatMap((part): (TextContent | ImageContent)[] => {
        if (part.type === 'text') return [{ type: 'text' as const, text: part.text }]
        if (part.type === 'image' && typeof part.image === 'string') {
          return [
            { type: 'image' as const, data: part.image, mimeType: part.mediaType ?? 'image/png' },
          ]
        }
        return [{ type: 'text' as const, text: `[${part.type}]` }]
      })
      return [{ role: 'user', content, timestamp }]
    }
    case 'assistant': {
      const parts =
        typeof message.content === 'string'
          ? [{ type: 'text' as const, text: message.content }]
          : message.content
      const content: AssistantMessage['content'] = []
      let calls = false
      for (const part of parts) {
        if (part.type === 'text') content.push({ type: 'text', text: part.text })
        else if (part.type === 'reasoning') content.push({ type: 'thinking', thinking: part.text })
        else if (part.type === 'tool-call') {
          calls = true
          content.push({
            type: 'toolCall',
            id: part.toolCallId,
            name: part.toolName,
            arguments: (part.input ?? {}) as Record<string, unknown>,
          })
        }
      }
      return [
        {
          role: 'assistant',
          content,
          api: 'a2',
          provider: 'a2',
          model: 'a2',
          usage: zeroUsage(),
          stopReason: calls ? 'toolUse' : 'stop',
          timestamp,
        },
      ]
    }
    case 'tool':
      return message.content.flatMap((part): ToolResultMessage[] => {
        if (part.type !== 'tool-result') return []
        return [
          {
            role: 'toolResult',
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            timestamp,
            ...resultOf(part.output),
          },
        ]
      })
  }
}

type ToolOutput = Extract<
  Extract<ModelMessage, { role: 'tool' }>['content'][number],
  { type: 'tool-result' }
>['output']

function resultOf(output: ToolOutput): Pick<ToolResultMessage, 'content' | 'details' | 'isError'> {
  switch (output.type) {
    case 'text':
      return { content: [{ type: 'text', text: output.value }], isError: false }
    case 'error-text':
      return { content: [{ type: 'text', text: output.value }], isError: true }
    case 'json':
      return isPiResult(output.value)
        ? { content: output.value.content, details: output.value, isError: false }
        : { content: [{ type: 'text', text: JSON.stringify(output.value) }], isError: false }
    case 'error-json':
      return { content: [{ type: 'text', text: JSON.stringify(output.value) }], isError: true }
    case 'execution-denied':
      return {
        content: [{ type: 'text', text: output.reason ?? 'The user denied this tool call.' }],
        isError: true,
      }
    default:
      return { content: [{ type: 'text', text: JSON.stringify(output) }], isError: false }
  }
}

/** Whether a stored tool output is what a Pi tool returned (`{ content, details }`). */
function isPiResult(value: unknown): value is { content: ToolResultMessage['content'] } {
  if (typeof value !== 'object' || value === null) return false
  const content = (value as { content?: unknown }).content
  return (
    Array.isArray(content) &&
    content.every(
      (block) =>
        typeof block === 'object' &&
        block !== null &&
        ((block as { type?: unknown }).type === 'text' ||
          (block as { type?: unknown }).type === 'image'),
    )
  )
}

/** The model messages for the context Pi's loop sends: A2's own where Pi left them as they were. */
export function modelMessagesOfPi(
  messages: readonly Message[],
  originals: WeakMap<object, ModelMessage>,
): ModelMessage[] {
  const out: ModelMessage[] = []
  for (const message of messages) {
    const original = originals.get(message)
    if (original !== undefined) {
      // One A2 tool message may hold several results: it goes back once.
      if (out.at(-1) !== original) out.push(original)
      continue
    }
    out.push(...modelMessagesFor(message))
  }
  return out
}

function modelMessagesFor(message: Message): ModelMessage[] {
  switch (message.role) {
    case 'user':
      return [
        {
          role: 'user',
          content:
            typeof message.content === 'string'
              ? message.content
              : message.content.map((block) =>
                  block.type === 'text'
                    ? { type: 'text' as const, text: block.text }
                    : { type: 'image' as const, image: block.data, mediaType: block.mimeType },
                ),
        },
      ]
    case 'assistant':
      return [
        {
          role: 'assistant',
          content: message.content.map((block) =>
            block.type === 'text'
              ? { type: 'text' as const, text: block.text }
              : block.type === 'thinking'
                ? { type: 'reasoning' as const, text: block.thinking }
                : {
                    type: 'tool-call' as const,
                    toolCallId: block.id,
                    toolName: block.name,
                    input: block.arguments,
                  },
          ),
        },
      ]
    case 'toolResult': {
      const text = message.content
        .map((block) => (block.type === 'text' ? block.text : `[image ${block.mimeType}]`))
        .join('\n')
      return [
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: message.toolCallId,
              toolName: message.toolName,
              output: message.isError
                ? { type: 'error-text', value: text }
                : { type: 'text', value: text },
            },
          ],
        },
      ]
    }
  }
}
