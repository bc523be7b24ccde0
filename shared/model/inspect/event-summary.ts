import type { StoredEvent } from '../../log/event.ts'
import { isReservedId } from '../../log/event.ts'
import { isAIEventType } from '../events/ai-events.ts'

/**
 * Who wrote an event, as far as the log can tell: `a2` for A2's own facts
 * and decisions (their IDs are in the reserved namespace), `client` for a
 * command a caller pushed (a browser, `inputs.*` on a server), `app` for the
 * application's own event types.
 */
export type EventAuthor = 'a2' | 'client' | 'app'

export function authorOf(event: Pick<StoredEvent, 'id' | 'type'>): EventAuthor {
  if (isReservedId(event.id)) return 'a2'
  if (event.type === 'ai.control.requested') return 'client'
  return isAIEventType(event.type) ? 'a2' : 'app'
}

/** How long a summary line may grow before it is cut with an ellipsis. */
export const SUMMARY_LENGTH = 100

type Fields = Record<string, unknown>

const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length > 0 ? value : undefined

/** `key=value` pairs of the fields that are set, in order. */
const pairs = (fields: Fields): string =>
  Object.entries(fields)
    .filter(([, value]) => value !== undefined && value !== null && value !== '')
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ')

/** The text of a message's text parts, quoted; the part types otherwise. */
function messageText(message: unknown): string {
  const parts = (message as { parts?: { type?: string; text?: string }[] } | null)?.parts ?? []
  const text = parts
    .map((part) => (part.type === 'text' ? (part.text ?? '') : ''))
    .join('')
    .replace(/\s+/g, ' ')
    .trim()
  return text.length > 0
    ? JSON.stringify(text)
    : `[${parts.map((part) => part.type ?? '?').join(', ')}]`
}

function commandSummary(payload: Fields): string {
  const { action, ...rest } = payload
  switch (action) {
    case 'message':
    case 'steer':
    case 'queue.edit': {
      const message = rest.message as { id?: string; role?: string } | undefined
      const flags = action === 'message' && rest.generate === false ? ' (passive)' : ''
      return `${action} ${message?.role ?? '?'} ${message?.id ?? '?'}${flags}: ${messageText(message)}`
    }
    case 'approval':
      return `approval ${rest.approved ? 'granted' : 'denied'} ${pairs({ approvalId: rest.approvalId, tool: rest.toolCallId, reason: rest.reason })}`
    case 'toolResult':
      return `toolResult ${pairs({ toolCallId: rest.toolCallId, error: rest.errorText })}`
    case 'interrupt':
      return `interrupt ${pairs(rest.owner as Fields)}`
    default:
      return `${String(action)} ${pairs(rest)}`.trim()
  }
}

function committedSummary(payload: Fields): string {
  const changes = (payload.changes as Fields[] | undefined) ?? []
  const ops = changes.map((change) => {
    const { op, ...rest } = change
    const subject = str(rest.inputId) ?? str(rest.turnId) ?? str(rest.approvalId) ?? ''
    const detail =
      op === 'approval.respond'
        ? ` ${rest.approved ? 'approved' : 'denied'}`
        : op === 'pause'
          ? ` ${String(rest.when)}`
          : op === 'turn.stop'
            ? ` ${String(rest.reason)}`
            : ''
    return `${String(op)}${subject ? ` ${subject}` : ''}${detail}`
  })
  const by = str(payload.commandId)
  return `${ops.join(', ') || 'no changes'}${by ? ` (command ${by})` : ''}`
}

/**
 * One line saying what an event did, for a timeline: the command's action
 * and message, a tool's name and outcome, a step's result. Unknown (app)
 * events show their payload as JSON.
 */
export function summarizeEvent(event: Pick<StoredEvent, 'type' | 'payload'>): string {
  const payload = (
    typeof event.payload === 'object' && event.payload !== null ? event.payload : {}
  ) as Fields
  const line = ((): string => {
    switch (event.type) {
      case 'ai.control.requested':
        return commandSummary(payload)
      case 'ai.control.committed':
        return committedSummary(payload)
      case 'ai.control.decided':
        return `${String(payload.action)} ${String(payload.outcome)}${payload.reason ? ` (${String(payload.reason)})` : ''} ${pairs({ command: payload.commandId })}`
      case 'ai.message.created':
        return pairs({ input: payload.inputId, turn: payload.turnId })
      case 'ai.generation.requested':
        return `step ${String(payload.step)} ${pairs({ request: payload.requestId, retry: payload.retryId })}`
      case 'ai.generation.started':
        return `step ${String(payload.step)} attempt ${String(payload.attempt)} ${pairs({ generation: payload.generationId, model: payload.modelId, version: payload.version })}`
      case 'ai.generation.completed':
        return `${String(payload.outcome)} ${pairs({ finish: payload.finishReason, error: payload.error, generation: payload.generationId })}`
      case 'ai.generation.superseded':
        return pairs({ generation: payload.generationId, reason: payload.reason })
      case 'ai.tool.called':
        return `${String(payload.toolName)} ${pairs({ call: payload.toolCallId, provider: payload.providerExecuted })}`
      case 'ai.approval.requested':
        return `${String(payload.toolName)} ${pairs({ approval: payload.approvalId, call: payload.toolCallId })}`
      case 'ai.tool.result':
        return `${String(payload.outcome)}${payload.preliminary ? ' (preliminary)' : ''} ${pairs({ call: payload.toolCallId, error: payload.errorText, reason: payload.reason, output: payload.output, version: payload.version })}`
      case 'ai.tool.interrupted':
        return pairs({ call: payload.toolCallId, reason: payload.reason })
      case 'ai.message.completed':
        return `${String(payload.reason)} ${pairs({ message: payload.messageId })}`
      case 'ai.handler.dead-lettered':
        return `${String(payload.lane)} lane${payload.key ? ` (${String(payload.key)})` : ''} after ${String(payload.attempts)} attempts: ${String(payload.error)}`
      case 'ai.compaction.started':
      case 'ai.compaction.completed':
      case 'ai.compaction.failed':
        return pairs({
          compaction: payload.compactionId,
          status: payload.status,
          error: payload.error,
        })
      default:
        return JSON.stringify(event.payload) ?? ''
    }
  })()
  return line.length > SUMMARY_LENGTH ? `${line.slice(0, SUMMARY_LENGTH - 1)}…` : line
}
