import { ClaimHeldError, FencedOutError } from '../../log/errors.ts'
import type { Claim, ClaimOptions, EventStore } from '../../log/event-store.ts'
import { keyOf, type MemoryState } from './memory-state.ts'

type ClaimMethods = Pick<
  EventStore,
  'claim' | 'renewClaim' | 'readClaim' | 'releaseClaim' | 'revokeClaim'
>

/** The memory store's claims: one per key and session, an attempt count its fence. */
export function memoryClaims({ claims, now }: MemoryState): ClaimMethods {
  return {
    async claim(sessionId: string, key: string, { ttlMs }: ClaimOptions): Promise<Claim> {
      const held = claims.get(keyOf(sessionId, key))
      const at = now()
      if (held && held.expiresAt > at)
        throw new ClaimHeldError(sessionId, key, held.attempt, held.expiresAt)
      const claim: Claim = { key, attempt: (held?.attempt ?? 0) + 1, expiresAt: at + ttlMs }
      claims.set(keyOf(sessionId, key), claim)
      return held ? { ...claim, previous: held.ended ?? 'expired' } : { ...claim }
    },

    async renewClaim(sessionId: string, claim: Claim, { ttlMs }: ClaimOptions): Promise<Claim> {
      const held = claims.get(keyOf(sessionId, claim.key))
      if (held?.attempt !== claim.attempt)
        throw new FencedOutError(sessionId, claim.key, claim.attempt)
      const renewed = { key: held.key, attempt: held.attempt, expiresAt: now() + ttlMs }
      claims.set(keyOf(sessionId, claim.key), renewed)
      return { ...renewed }
    },

    async readClaim(sessionId: string, key: string): Promise<Claim | undefined> {
      const held = claims.get(keyOf(sessionId, key))
      return held && { key: held.key, attempt: held.attempt, expiresAt: held.expiresAt }
    },

    async releaseClaim(sessionId: string, claim: Claim): Promise<void> {
      const held = claims.get(keyOf(sessionId, claim.key))
      if (held?.attempt !== claim.attempt) return
      claims.set(keyOf(sessionId, claim.key), { ...held, expiresAt: 0, ended: 'released' })
    },

    async revokeClaim(sessionId: string, key: string): Promise<void> {
      const held = claims.get(keyOf(sessionId, key))
      claims.set(keyOf(sessionId, key), {
        key,
        attempt: (held?.attempt ?? 0) + 1,
        expiresAt: 0,
        ended: 'revoked',
      })
    },
  }
}
