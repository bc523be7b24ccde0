import { MAX_ID_LENGTH } from '../log/limits.ts'

/** IDs A2's AI protocol derives start with this; callers may not use it. */
export const AI_ID_PREFIX = 'a2.ai:'

export function isAIReservedId(id: string): boolean {
  return id.startsWith(AI_ID_PREFIX)
}

// cyrb53, twice with different seeds: a deterministic, synchronous 106-bit
// digest with no Node or Web Crypto dependency, for IDs that would otherwise
// pass the log's ID length limit.
function cyrb53(text: string, seed: number): string {
  let h1 = 0xdeadbeef ^ seed
  let h2 = 0x41c6ce57 ^ seed
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ code, 2654435761)
    h2 = Math.imul(h2 ^ code, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36)
}

/**
 * An ID in the reserved namespace derived from its cause, so a retried
 * decision writes the same IDs and the log replays it instead of duplicating.
 * Too long a result is replaced by a digest of the same parts.
 *
 * @example
 * derivedId('decided', commandId) // 'a2.ai:decided:<commandId>'
 */
export function derivedId(kind: string, ...parts: readonly (string | number)[]): string {
  const plain = `${AI_ID_PREFIX}${kind}:${parts.join(':')}`
  if (plain.length <= MAX_ID_LENGTH) return plain
  const joined = JSON.stringify(parts)
  return `${AI_ID_PREFIX}${kind}:#${cyrb53(joined, 1)}${cyrb53(joined, 2)}`
}

/** The turn an input starts. */
export const turnIdFor = (inputId: string): string => derivedId('turn', inputId)

/** The assistant response of the turn an input starts. */
export const responseIdFor = (inputId: string): string => derivedId('response', inputId)

/**
 * A logical tool call: the provider's tool-call ID within the model step
 * (generation) that made it. Providers may reuse their IDs across steps and
 * turns (`call_0`), so claims, wake-ups and A2's own event IDs key on this.
 */
export const toolCallKey = (call: { generationId: string; toolCallId: string }): string =>
  derivedId('call', call.generationId, call.toolCallId)
