/**
 * The example's user-message metadata (`UIMessage.metadata`): who sent a
 * user message that nobody typed. The model never reads it (the AI SDK
 * leaves metadata out of the prompt), so it labels a message without
 * changing what the agent is told. `setReminder`'s timer sets it on the
 * message it schedules, and the chat page shows that message as the
 * reminder's, not as the user's.
 */
export interface ExampleMessageMetadata {
  /** `reminder`: the `setReminder` tool's timer wrote this message. */
  sentBy?: 'reminder'
}

/** The metadata of a message a reminder's timer sends. */
export const REMINDER_METADATA = { sentBy: 'reminder' } as const satisfies ExampleMessageMetadata

/**
 * Whether a reminder's timer sent `message`. Told by the metadata the tool
 * sets, not by its text or ID, which a user could type or a tool choose.
 *
 * @example
 * sentByReminder({ role: 'user', metadata: REMINDER_METADATA }) // true
 */
export function sentByReminder(message: { role: string; metadata?: unknown }): boolean {
  const metadata = message.metadata as ExampleMessageMetadata | undefined
  return message.role === 'user' && metadata?.sentBy === REMINDER_METADATA.sentBy
}
