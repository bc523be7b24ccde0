import { messageOf } from '../../log/message-of.ts'
import { fetchFailure } from './fetch-failure.ts'

/** What the AI SDK puts before a connection failure's cause (`@ai-sdk/provider-utils`). */
const CANNOT_CONNECT = 'Cannot connect to API: '

/**
 * A failed model call's reason, as the log records it (`state.active.error`):
 * the error's message, led by where the call went and why it got no answer
 * when that is what happened. A provider's own message can hide it: AI
 * Gateway's for a Gateway it cannot reach is `Invalid error response
 * format: Gateway request failed`, and the AI SDK's retries wrap it once
 * more (`Failed after 3 attempts`); the URL and the system error
 * (`getaddrinfo ENOTFOUND`, `connect ECONNREFUSED`) are only in the cause
 * chain, on the AI SDK's `APICallError`.
 *
 * @example
 * result.toUIMessageStream({ onError: modelErrorText })
 */
export function modelErrorText(error: unknown): string {
  const message = messageOf(error)
  const call = failedCall(error)
  if (!call) return message
  if (call.unreachable) {
    const reached = `Cannot reach the model's API at ${call.url}: ${call.unreachable}`
    return message === `${CANNOT_CONNECT}${call.unreachable}` ? reached : `${reached} (${message})`
  }
  // AI Gateway's words for an answer it could not read (a proxy's HTML page, say).
  if (call.status !== undefined && message.includes('Invalid error response format')) {
    return `${message} (${call.url} answered ${call.status})`
  }
  return message
}

interface FailedCall {
  url: string
  status?: number
  /** Why no answer came, when none did. */
  unreachable?: string
}

/** The innermost API call the error's chain names (`cause`, and a `RetryError`'s `lastError`). */
function failedCall(error: unknown): FailedCall | undefined {
  let found: FailedCall | undefined
  const seen = new Set<unknown>()
  for (let at: unknown = error; isObject(at) && !seen.has(at); ) {
    seen.add(at)
    const url = at.url
    if (typeof url === 'string') {
      const text = typeof at.message === 'string' ? at.message : ''
      const unreachable = text.startsWith(CANNOT_CONNECT)
        ? text.slice(CANNOT_CONNECT.length)
        : fetchFailure(at.cause)
      found = {
        url,
        ...(typeof at.statusCode === 'number' ? { status: at.statusCode } : {}),
        ...(unreachable ? { unreachable } : {}),
      }
    }
    at = at.cause ?? at.lastError
  }
  return found
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}
