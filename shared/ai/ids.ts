import { shortDigest } from '../log/id-hash.ts'
import { MAX_ID_LENGTH } from '../log/limits.ts'

/** IDs A2's AI protocol derives start with this; callers may not use it. */
export const AI_ID_PREFIX = 'a2.ai:'

export function isAIReservedId(id: string): boolean {
  return id.startsWith(AI_ID_PREFIX)
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
  return `${AI_ID_PREFIX}${kind}:#${shortDigest(JSON.stringify(parts))}`
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
