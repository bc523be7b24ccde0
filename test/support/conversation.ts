import type { UIMessage } from 'ai'

/** A user message with one text part (its text defaults to its ID). */
export function userMessage(id: string, text = id): UIMessage {
  return { id, role: 'user', parts: [{ type: 'text', text }] }
}

/** The text parts of a message, joined: what a reader sees of it. */
export function textOf(
  message: { parts: readonly ({ type: string } | { type: 'text'; text: string })[] } | undefined,
): string {
  return (message?.parts ?? [])
    .map((part) => ('text' in part && part.type === 'text' ? part.text : ''))
    .join('')
}
