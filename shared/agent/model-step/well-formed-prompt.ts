import { safeValidateUIMessages, type UIMessage } from 'ai'
import { type MessageIssue, uiMessageIssues } from '../session/ui-message-issues.ts'

/** A part (or a whole message, `part` undefined) the prompt left out, and why. */
export interface LeftOut {
  messageId: string
  part?: number
  issue: MessageIssue
}

/**
 * The prompt's messages as the AI SDK's UI message schemas accept them.
 * Appends are checked (message-check.ts), but a log written before they
 * were may hold a part the SDK refuses: a `txt` part, a `text` part whose
 * text is a number, a `file` part with no `url` (which made every later
 * model call of its session throw "Invalid URL"). Such a part is left out
 * of the prompt and reported; the log and the state keep it, so nothing
 * stored is lost. A message left with no parts, or whose envelope the SDK
 * refuses, is left out whole.
 *
 * A prompt that passes as a whole (every prompt since the check) costs one
 * validation; only a refused one is looked at message by message.
 *
 * @example
 * const messages = await wellFormedPrompt(promptMessages(state), (left) => logger.warn(left))
 */
export async function wellFormedPrompt<M extends UIMessage>(
  messages: readonly M[],
  report: (leftOut: LeftOut) => void,
): Promise<M[]> {
  if (messages.length === 0 || (await safeValidateUIMessages({ messages })).success) {
    return [...messages]
  }
  const kept: M[] = []
  for (const message of messages) {
    const wellFormed = await wellFormedMessage(message, report)
    if (wellFormed) kept.push(wellFormed)
  }
  return kept
}

async function wellFormedMessage<M extends UIMessage>(
  message: M,
  report: (leftOut: LeftOut) => void,
): Promise<M | undefined> {
  let candidate = message
  // Where each part left is in the stored message, for the report.
  let positions = message.parts.map((_, at) => at)
  // Each round leaves out one part, so this ends within the message's parts.
  for (;;) {
    if (candidate.parts.length === 0) return undefined
    const issues = await uiMessageIssues(candidate)
    if (!issues) return candidate
    const [issue] = issues
    const at = issue.path[0] === 'parts' ? issue.path[1] : undefined
    if (typeof at !== 'number') {
      report({ messageId: message.id, issue })
      return undefined
    }
    const stored = positions[at] as number
    report({
      messageId: message.id,
      part: stored,
      issue: { ...issue, path: ['parts', stored, ...issue.path.slice(2)] },
    })
    candidate = { ...candidate, parts: candidate.parts.filter((_, index) => index !== at) }
    positions = positions.filter((_, index) => index !== at)
  }
}

/** Reports what a session's prompt left out, on the agent's logger (for operators). */
export function warnLeftOut(
  logger: Pick<Console, 'warn'>,
  sessionId: string,
): (leftOut: LeftOut) => void {
  return ({ messageId, part, issue }) => {
    const what = part === undefined ? `message "${messageId}"` : `part ${part} of "${messageId}"`
    const where = issue.path.length > 0 ? ` at ${issue.path.join('.')}` : ''
    logger.warn(
      `a2: session ${sessionId}: ${what} left out of the prompt (the AI SDK refuses it${where}: ${issue.message}); the log keeps it`,
    )
  }
}
