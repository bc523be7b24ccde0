import { shortDigest } from '../../log/id-hash.ts'
import { MAX_ID_LENGTH } from '../../log/limits.ts'
import { idempotentId } from './idempotent-id.ts'

/** IDs A2's AI protocol derives start with this; callers may not use it. */
const AI_ID_PREFIX = 'a2.ai:'

export function isAIReservedId(id: string): boolean {
  return id.startsWith(AI_ID_PREFIX)
}

/**
 * An ID in the reserved namespace derived from its cause, so a retried
 * decision writes the same IDs and the log replays it instead of duplicating.
 * Too long a result is replaced by a digest of the same parts.
 *
 * The rule: event IDs are unique across a store's sessions (the store
 * refuses a reused one), so the parts must name something that exists once
 * in the store. That is an event ID (a caller's, which the docs require to be
 * store-unique), an ID A2 derived from one (a turn, request, generation,
 * approval, compaction: all rooted in an input's ID), or the session ID.
 * Anything that repeats across sessions (a model ID, a lane, a wake-up key,
 * a timer name, a provider's tool-call ID, an occurrence counter or a clock
 * reading) never makes an ID alone: pair it with one of those, as
 * `sessionScopedId()` does with the session. test/shared/model/controller/ids-store-unique
 * runs every session of a store on the same script to hold the rule.
 *
 * @example
 * derivedId('decided', commandId) // 'a2.ai:decided:<commandId>'
 */
export function derivedId(kind: string, ...parts: readonly (string | number)[]): string {
  const plain = `${AI_ID_PREFIX}${kind}:${parts.join(':')}`
  if (plain.length <= MAX_ID_LENGTH) return plain
  return `${AI_ID_PREFIX}${kind}:#${shortDigest(JSON.stringify(parts))}`
}

/**
 * A derived ID whose other parts repeat across sessions (a model ID, a
 * timer name, a lane): the session makes it the session's own.
 *
 * @example
 * sessionScopedId('model-metadata', sessionId, modelId)
 */
export const sessionScopedId = (
  kind: string,
  sessionId: string,
  ...parts: readonly (string | number)[]
): string => derivedId(kind, sessionId, ...parts)

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

/**
 * The idempotency key of a tool execution: one per logical call (its session,
 * its life, model step and provider ID), so every retry and recovery of the
 * call passes the same key to a payment, email or queue API, and a provider
 * ID reused in another step or turn gets another, as does a call of a life
 * started over after an erase that reuses the same IDs (a new intent, not a
 * retry). Short and URL-safe (`id-` and 32 base64url characters), within
 * the key limits such APIs set. A session written before lives (life `''`)
 * keeps the key it had.
 */
export const toolIdempotencyKey = (
  sessionId: string,
  call: { generationId: string; toolCallId: string },
  life: string | undefined,
): string =>
  life === undefined || life === ''
    ? idempotentId('a2.tool-call', sessionId, call.generationId, call.toolCallId)
    : idempotentId('a2.tool-call', sessionId, life, call.generationId, call.toolCallId)

/** The idempotency key of an app event handler's run: one per session, life and event. */
export const handlerIdempotencyKey = (
  sessionId: string,
  eventId: string,
  life: string | undefined,
): string =>
  life === undefined || life === ''
    ? idempotentId('a2.handler', sessionId, eventId)
    : idempotentId('a2.handler', sessionId, life, eventId)
