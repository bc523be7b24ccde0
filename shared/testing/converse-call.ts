import type { ModelCall } from './model-script.ts'

/** One content block of a Converse message: exactly one of these members is set. */
export interface ConverseContentBlock {
  text?: string
  toolUse?: { toolUseId: string; name: string; input: unknown }
  toolResult?: { toolUseId: string; content: { text?: string; json?: unknown }[]; status?: string }
  reasoningContent?: { reasoningText?: { text: string; signature?: string } }
  cachePoint?: { type: string }
  [member: string]: unknown
}

/** What `@ai-sdk/amazon-bedrock` posts to ConverseStream (the members a double reads). */
export interface ConverseRequest {
  messages: { role: 'user' | 'assistant'; content: ConverseContentBlock[] }[]
  system?: { text?: string; cachePoint?: { type: string } }[]
  toolConfig?: {
    tools?: { toolSpec?: { name: string; description?: string } }[]
    toolChoice?: unknown
  }
  inferenceConfig?: Record<string, unknown>
  [member: string]: unknown
}

/**
 * A ConverseStream request as the same `ModelCall` the other doubles give.
 * Converse has no tool role: tool results travel in user messages, and the
 * provider merges consecutive user messages (and tool results) into one. So
 * a user message's run of tool results is a `tool` entry of its own, and
 * the rest of it one `user` entry, its text blocks joined; tool blocks are
 * JSON, reasoning and cache points are left out.
 */
export function callOfConverse(modelId: string, body: ConverseRequest): ModelCall {
  const system = (body.system ?? []).flatMap((block) =>
    block.text === undefined ? [] : block.text,
  )
  const messages: ModelCall['messages'] = []
  for (const message of body.messages) {
    let run: { role: ModelCall['messages'][number]['role']; text: string } | undefined
    for (const block of message.content) {
      if (block.cachePoint || block.reasoningContent) continue
      const role = message.role === 'user' && block.toolResult ? 'tool' : message.role
      const text = typeof block.text === 'string' ? block.text : JSON.stringify(block)
      if (run?.role === role) run.text += text
      else {
        run = { role, text }
        messages.push(run)
      }
    }
  }
  return {
    modelId,
    system: system.length === 0 ? undefined : system.join('\n'),
    messages,
    tools: (body.toolConfig?.tools ?? []).flatMap((tool) => tool.toolSpec?.name ?? []),
    body,
  }
}
