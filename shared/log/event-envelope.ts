import { z } from 'zod'
import { InvalidEventError, InvalidSessionIdError } from './errors.ts'
import type { EventInput } from './event.ts'

/** IDs and session IDs become DynamoDB key parts; keep them short and printable. */
export const MAX_ID_LENGTH = 256
export const MAX_TYPE_LENGTH = 128

// Control characters would make IDs ambiguous in logs, keys and SSE frames.
const printable = /^[^\p{Cc}]+$/u

const envelope = z.object({
  id: z
    .string()
    .min(1)
    .max(MAX_ID_LENGTH)
    .regex(printable, 'must not contain control characters')
    .optional(),
  type: z
    .string()
    .min(1)
    .max(MAX_TYPE_LENGTH)
    .regex(printable, 'must not contain control characters'),
  payload: z.unknown(),
})

/** Checks the `{ id, type, payload }` shape every event shares. */
export function checkEnvelope(event: unknown): EventInput {
  const result = envelope.safeParse(event)
  if (result.success && 'payload' in (event as object)) return result.data as EventInput
  const type =
    typeof (event as { type?: unknown })?.type === 'string'
      ? (event as { type: string }).type
      : '(unknown type)'
  const issues = result.success
    ? [{ path: ['payload'], message: 'is required' }]
    : result.error.issues.map((issue) => ({
        path: issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key)),
        message: issue.message,
      }))
  throw new InvalidEventError(type, issues)
}

export function checkSessionId(sessionId: unknown): string {
  if (
    typeof sessionId !== 'string' ||
    sessionId.length === 0 ||
    sessionId.length > MAX_ID_LENGTH ||
    !printable.test(sessionId)
  ) {
    throw new InvalidSessionIdError(
      `Session IDs are 1 to ${MAX_ID_LENGTH} printable characters; got ${JSON.stringify(sessionId)?.slice(0, 80)}`,
    )
  }
  return sessionId
}
