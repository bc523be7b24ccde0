import { safeValidateUIMessages } from 'ai'

/** A field of a message the AI SDK refused: its path inside the message, and why. */
export interface MessageIssue {
  path: (string | number)[]
  message: string
}

/** At least one issue. */
export type MessageIssues = [MessageIssue, ...MessageIssue[]]

/**
 * What the AI SDK's own UI message schemas (`safeValidateUIMessages`) refuse
 * in one message, or undefined when they accept it. No tools, metadata or
 * data schemas are passed, so the SDK checks its shapes: each part by its
 * `type` (a `text` part has a string `text`, a `file` part a string
 * `mediaType` and `url`, a tool part a known `state` and a `toolCallId`, a
 * `data-*` part any `data`), and a type it does not know (`txt`) is refused.
 * Custom `data-*` parts pass, as the SDK allows them.
 *
 * @example
 * await uiMessageIssues({ id: 'm1', role: 'user', parts: [{ type: 'txt', text: 'hi' }] })
 * // [{ path: ['parts', 0, 'type'], message: 'Invalid UI message part type. ...' }]
 */
export async function uiMessageIssues(message: unknown): Promise<MessageIssues | undefined> {
  const result = await safeValidateUIMessages({ messages: [message] })
  return result.success ? undefined : issuesOf(result.error)
}

// The SDK reports a zod error as the cause of its TypeValidationError, with
// paths into the messages array: the first key is the message's index (0).
function issuesOf(error: Error): MessageIssues {
  const issues = (error.cause as { issues?: unknown } | undefined)?.issues
  const [first, ...rest] = (Array.isArray(issues) ? issues : []).map(
    (issue: { path?: unknown; message?: unknown }): MessageIssue => {
      const path = (Array.isArray(issue.path) ? issue.path : []).map(keyOf)
      return {
        path: path[0] === 0 ? path.slice(1) : path,
        message: typeof issue.message === 'string' ? issue.message : 'is invalid',
      }
    },
  )
  return first ? [first, ...rest] : [{ path: [], message: error.message }]
}

/** A path segment as zod (a key) or a Standard Schema (`{ key }`) gives it. */
function keyOf(segment: unknown): string | number {
  const key =
    typeof segment === 'object' && segment !== null ? (segment as { key?: unknown }).key : segment
  return typeof key === 'number' ? key : String(key)
}
