import { InvalidEventError } from '../../log/errors.ts'
import type { EventInput } from '../../log/event.ts'
import { uiMessageIssues } from './ui-message-issues.ts'

/** The commands whose message enters the transcript: new inputs and queue edits. */
const MESSAGE_ACTIONS: ReadonlySet<unknown> = new Set(['message', 'steer', 'queue.edit'])

/**
 * Refuses an event whose command carries a message the AI SDK's UI message
 * schemas refuse (see `uiMessageIssues`), with `InvalidEventError` naming
 * the path inside the payload (`message.parts.0.type`). The loose schema of
 * `ai.control.requested` checks only the message's envelope (ID, role, each
 * part's `type`), and a message stored with a misspelt part reached the
 * model as an empty message, or broke every later model call of the
 * session: an append is the one place to refuse it. Other events pass.
 *
 * @example
 * await checkMessages(inputs.message({ id: 'm1', role: 'user', parts: [{ type: 'text', text: 42 }] }))
 * // throws INVALID_EVENT at payload.message.parts.0.text
 */
export async function checkMessages(events: readonly EventInput[]): Promise<void> {
  for (const event of events) {
    const message = carriedMessage(event)
    if (message === undefined) continue
    const issues = await uiMessageIssues(message)
    if (issues) {
      throw new InvalidEventError(
        event.type,
        issues.map((issue) => ({ path: ['message', ...issue.path], message: issue.message })),
      )
    }
  }
}

function carriedMessage(event: EventInput): unknown {
  if (event.type !== 'ai.control.requested') return undefined
  const payload = event.payload as { action?: unknown; message?: unknown } | null
  return MESSAGE_ACTIONS.has(payload?.action) ? payload?.message : undefined
}
