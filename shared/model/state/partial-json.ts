import { secureJsonParse } from '@ai-sdk/provider-utils'
import { fixJson } from './fix-json.ts'

// `ai` exports `parsePartialJson` only as an async function, and the reducer
// must fold synchronously. This is the SDK's parse-then-repair order over a port
// of its `fixJson` (./fix-json.ts), checked against the SDK's own
// `parsePartialJson` by a property test (test/shared/model/state/partial-json.test.ts),
// so an input-streaming tool part carries the same best-effort `input` that
// `useChat` shows.

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: secureJsonParse(text) }
  } catch {
    return { ok: false }
  }
}

/**
 * The best-effort value of a JSON text that may be cut off mid-way, exactly as
 * the AI SDK's async `parsePartialJson(text).value` computes it.
 *
 * @example
 * parsePartialJsonSync('{"city":"Ber') // { city: 'Ber' }
 */
export function parsePartialJsonSync(text: string | undefined): unknown {
  if (text === undefined) return undefined
  const exact = tryParse(text)
  if (exact.ok) return exact.value
  const repaired = tryParse(fixJson(text))
  return repaired.ok ? repaired.value : undefined
}
