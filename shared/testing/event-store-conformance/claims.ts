import { randomUUID } from 'node:crypto'
import { ClaimHeldError, FencedOutError } from '../../index.ts'
import { sleep } from '../../timing/sleep.ts'
import { type ConformanceTestApi, type EventStoreHarness, ev, session } from './conformance-kit.ts'

/** Claims (attempts, expiry, release, revocation) and the fences they put on appends. */
export function describeClaims(
  harness: () => EventStoreHarness,
  { describe, it, expect }: ConformanceTestApi,
): void {
  describe('claims and fencing', () => {
    const ttl = { ttlMs: 60_000 }

    it('gives a free claim to its first taker as attempt 1, and refuses others while it is held', async () => {
      const { store } = harness()
      const s = session()
      const before = Date.now()
      const claim = await store.claim(s, 'gen:1', ttl)
      expect(claim).toMatchObject({ key: 'gen:1', attempt: 1 })
      expect(claim.expiresAt).toBeGreaterThanOrEqual(before + 60_000 - 1000)
      const error = await store.claim(s, 'gen:1', ttl).catch((e) => e)
      expect(error).toBeInstanceOf(ClaimHeldError)
      expect(error).toMatchObject({ code: 'CLAIM_HELD', attempt: 1, expiresAt: claim.expiresAt })
      expect(await store.readClaim(s, 'gen:1')).toEqual(claim)
      expect(await store.readClaim(s, 'gen:2')).toBeUndefined()
    })

    it('lets exactly one of several concurrent takers have a free claim', async () => {
      const { store } = harness()
      const s = session()
      const takers = await Promise.allSettled([1, 2, 3, 4].map(() => store.claim(s, 'tool:x', ttl)))
      expect(takers.filter((t) => t.status === 'fulfilled')).toHaveLength(1)
    })

    it('hands an expired claim to a new attempt, which fences out the old one', async () => {
      const { store } = harness()
      const s = session()
      const first = await store.claim(s, 'gen:1', { ttlMs: 20 })
      await store.append(s, [ev(randomUUID())], {
        fence: { claim: 'gen:1', attempt: first.attempt },
      })
      await sleep(40)
      const second = await store.claim(s, 'gen:1', ttl)
      expect(second.attempt).toBe(2)
      const late = await store
        .append(s, [ev(randomUUID())], { fence: { claim: 'gen:1', attempt: 1 } })
        .catch((e) => e)
      expect(late).toBeInstanceOf(FencedOutError)
      expect(late).toMatchObject({ code: 'FENCED_OUT', attempt: 1 })
      await expect(store.renewClaim(s, first, ttl)).rejects.toBeInstanceOf(FencedOutError)
      expect(await store.head(s)).toBe(1)
      await store.append(s, [ev(randomUUID())], { fence: { claim: 'gen:1', attempt: 2 } })
      expect(await store.head(s)).toBe(2)
    })

    it('tells the next taker how the previous attempt ended: expired, released or revoked', async () => {
      const { store } = harness()
      const s = session()
      expect((await store.claim(s, 'w', { ttlMs: 10 })).previous).toBeUndefined()
      await sleep(25)
      const second = await store.claim(s, 'w', ttl)
      expect(second).toMatchObject({ attempt: 2, previous: 'expired' })
      await store.releaseClaim(s, second)
      const third = await store.claim(s, 'w', ttl)
      expect(third).toMatchObject({ attempt: 3, previous: 'released' })
      await store.releaseClaim(s, second) // superseded: no effect
      await expect(store.claim(s, 'w', ttl)).rejects.toBeInstanceOf(ClaimHeldError)
      await store.revokeClaim(s, 'w')
      await expect(store.renewClaim(s, third, ttl)).rejects.toBeInstanceOf(FencedOutError)
      await expect(
        store.append(s, [ev(randomUUID())], { fence: { claim: 'w', attempt: third.attempt } }),
      ).rejects.toBeInstanceOf(FencedOutError)
      expect(await store.claim(s, 'w', ttl)).toMatchObject({ attempt: 5, previous: 'revoked' })
    })

    it('renews a held claim', async () => {
      const { store } = harness()
      const s = session()
      const claim = await store.claim(s, 'gen:1', { ttlMs: 1_000 })
      const renewed = await store.renewClaim(s, claim, ttl)
      expect(renewed.attempt).toBe(1)
      expect(renewed.expiresAt).toBeGreaterThan(claim.expiresAt)
      expect(await store.readClaim(s, 'gen:1')).toEqual(renewed)
    })

    it('refuses writes fenced on a claim nobody took', async () => {
      const { store } = harness()
      const s = session()
      await expect(
        store.append(s, [ev(randomUUID())], { fence: { claim: 'never', attempt: 1 } }),
      ).rejects.toBeInstanceOf(FencedOutError)
      expect(await store.head(s)).toBe(0)
    })

    it('still honours a fence on an unguarded append', async () => {
      const { store } = harness()
      const s = session()
      const claim = await store.claim(s, 'gen:u', { ttlMs: 60_000 })
      await store.revokeClaim(s, 'gen:u')
      const late = await store
        .append(s, [ev(randomUUID())], {
          expectedIndex: 0,
          guardIds: false,
          fence: { claim: 'gen:u', attempt: claim.attempt },
        })
        .catch((e) => e)
      expect(late).toBeInstanceOf(FencedOutError)
      expect(await store.head(s)).toBe(0)
    })
  })
}
