import { idHash } from '../../log/id-hash.ts'

/**
 * A stable event ID derived from its cause, for appends that a retried
 * handler must converge on. Event IDs are unique across a store's sessions,
 * so include what scopes it: the contract, the target session, the source
 * event's or tool call's ID.
 *
 * @example
 * // The room's handler forwards a message to the agent's session:
 * const id = idempotentId('support-desk', agentSessionId, roomEvent.id)
 * await agentSession.append(...inputs.message({ id, role: 'user', parts }))
 */
export function idempotentId(...parts: readonly (string | number)[]): string {
  if (parts.length === 0) throw new TypeError('idempotentId() needs at least one part')
  // JSON keeps ['a:b', 'c'] and ['a', 'b:c'] apart; SHA-256 keeps the ID short.
  return `id-${idHash(JSON.stringify(parts), 'base64url', 24)}`
}
