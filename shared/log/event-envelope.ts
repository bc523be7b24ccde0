import { z } from 'zod'
import { InvalidEventError, InvalidSessionIdError } from './errors.ts'
import type { EventInput } from './event.ts'
import { MAX_ID_LENGTH, MAX_PAYLOAD_DEPTH, MAX_TYPE_LENGTH } from './limits.ts'

// IDs, session IDs and types become DynamoDB keys and attributes, and appear
// in logs, the inspector and the page. Refused: control characters (Cc);
// invisible format characters such as bidi overrides and zero-width spaces
// (Cf); line and paragraph separators (Zl, Zp) and spaces other than U+0020
// (Zs), which make one ID pass for another; unpaired surrogates (Cs), which
// have no UTF-8 form and so cannot be stored.
const unprintable = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]|(?! )\p{Zs}/u
const PRINTABLE_RULE =
  'must be printable: no control, invisible format (bidi, zero-width), line separator or unpaired surrogate characters, and no space but U+0020'

const printableText = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((text) => !unprintable.test(text), PRINTABLE_RULE)

const envelope = z.object({
  id: printableText(MAX_ID_LENGTH).optional(),
  type: printableText(MAX_TYPE_LENGTH),
  payload: z.unknown(),
})

/** Checks the `{ id, type, payload }` shape every event shares. */
export function checkEnvelope(event: unknown): EventInput {
  const result = envelope.safeParse(event)
  if (result.success && 'payload' in (event as object)) {
    checkPayloadDepth(result.data as EventInput)
    return result.data as EventInput
  }
  const issues = result.success
    ? [{ path: ['payload'], message: 'is required' }]
    : result.error.issues.map((issue) => ({
        path: issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key)),
        message: issue.message,
      }))
  throw new InvalidEventError(typeOf(event), issues, 'event')
}

/**
 * Refuses a payload nested deeper than `MAX_PAYLOAD_DEPTH`, before anything
 * walks it recursively (serialising, comparing or cloning it would overflow
 * the stack). Anything that is not an event with a payload passes.
 */
export function checkPayloadDepth(event: unknown): void {
  const payload = (event as { payload?: unknown } | null)?.payload
  if (nestsDeeperThan(payload, MAX_PAYLOAD_DEPTH)) {
    throw new InvalidEventError(typeOf(event), [
      {
        path: [],
        message: `the payload nests objects and arrays deeper than ${MAX_PAYLOAD_DEPTH} levels, the limit`,
      },
    ])
  }
}

/** Measures with its own stack, so no depth (nor a cycle) can overflow it. */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 1 }]
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next.value === null || typeof next.value !== 'object') continue
    if (next.depth > max) return true
    for (const child of Object.values(next.value))
      stack.push({ value: child, depth: next.depth + 1 })
  }
  return false
}

/** A value for an error message, with the characters that hide in text escaped. */
function visible(value: unknown): string {
  const json = JSON.stringify(value)?.slice(0, 80) ?? String(value)
  return json.replace(
    new RegExp(unprintable.source, 'gu'),
    (char) => `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  )
}

function typeOf(event: unknown): string {
  const type = (event as { type?: unknown } | null)?.type
  return typeof type === 'string' ? type : '(unknown type)'
}

export function checkSessionId(sessionId: unknown): string {
  if (
    typeof sessionId !== 'string' ||
    sessionId.length === 0 ||
    sessionId.length > MAX_ID_LENGTH ||
    unprintable.test(sessionId)
  ) {
    throw new InvalidSessionIdError(
      `Session IDs are 1 to ${MAX_ID_LENGTH} characters and ${PRINTABLE_RULE}; got ${visible(sessionId)}`,
    )
  }
  return sessionId
}
