import type { ModelCall } from './model-script.ts'

/**
 * A prompt message as every AI SDK specification version writes it (v2 to
 * v4 differ in their parts, not in this outline): what a double reads from
 * the call options a model or the Gateway receives.
 */
export type PromptMessage =
  | { role: 'system'; content: string }
  | { role: 'user' | 'assistant' | 'tool'; content: readonly { type: string; text?: unknown }[] }

/**
 * A call's `ModelCall` from the AI SDK prompt it carries: the system
 * messages joined, each other message's text parts joined and its tool
 * parts (calls, results, files) as JSON. Reasoning is left out: it is
 * neither what the user said nor a tool part, and Bedrock's call leaves it
 * out too, so one script branches the same way on every double.
 */
export function callOfPrompt(
  modelId: string,
  prompt: readonly PromptMessage[],
  tools: readonly { name: string }[] | undefined,
  body: unknown,
): ModelCall {
  let system: string | undefined
  const messages: ModelCall['messages'] = []
  for (const message of prompt) {
    if (message.role === 'system') {
      system = system === undefined ? message.content : `${system}\n${message.content}`
      continue
    }
    const text = message.content
      .filter((part) => part.type !== 'reasoning')
      .map((part) =>
        part.type === 'text' && typeof part.text === 'string' ? part.text : JSON.stringify(part),
      )
      .join('')
    messages.push({ role: message.role, text })
  }
  return { modelId, system, messages, tools: (tools ?? []).map((tool) => tool.name), body }
}
