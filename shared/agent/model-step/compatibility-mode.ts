import type { UIMessageChunk } from 'ai'

// The AI SDK runs a provider on an older specification version in a
// compatibility mode, and one case of it reaches the UI stream changed: a
// global provider object without `specificationVersion` (`{ languageModel:
// (id) => model }`, what users write) is read as a v2 provider, so a v4
// model behind it has its finish part converted as if it were v2. Its
// `finishReason` then arrives as `{ unified: <the v4 reason>, raw }` instead
// of a string, and each usage count as `{ total, ... }` (summed into a
// string) instead of a number.
// The SDK streams on regardless; so does A2, reading the meaning back where
// it is clear. (shared/testing/legacy-provider.ts makes such providers.)

/**
 * A chunk as A2 stores it: a `finish` chunk whose reason came through the
 * compatibility mode as an object gets its string back (`unified`, however
 * deep); a reason with no string in it is dropped, since a finish without a
 * reason is valid and a guessed one is not.
 */
export function normalizedChunk(chunk: UIMessageChunk): UIMessageChunk {
  if (chunk.type !== 'finish' || chunk.finishReason === undefined) return chunk
  if (typeof chunk.finishReason === 'string') return chunk
  const reason = unwrapped(chunk.finishReason, 'unified')
  const { finishReason: _unreadable, ...rest } = chunk
  return typeof reason === 'string' ? { ...rest, finishReason: reason as never } : rest
}

/**
 * A step's usage as A2 stores and calibrates with: a count that came
 * through the compatibility mode as `{ total, ... }` becomes its `total`.
 * The SDK adds a step's counts up, which made the wrapped ones strings
 * (`'0[object Object]'`): what is not a number under a `...Tokens` key is no
 * count, and is left out rather than stored.
 */
export function normalizedUsage(
  usage: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (usage === undefined) return undefined
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(usage)) {
    if (value === undefined) continue
    const count = unwrapped(value, 'total')
    if (typeof count === 'number') out[key] = count
    else if (!key.endsWith('Tokens')) out[key] = value
  }
  return out
}

/** Follows `key` down through objects that wrap the value (at most a few levels). */
function unwrapped(value: unknown, key: string): unknown {
  let current = value
  for (let depth = 0; depth < 4; depth++) {
    if (typeof current !== 'object' || current === null || !(key in current)) return current
    current = (current as Record<string, unknown>)[key]
  }
  return current
}
