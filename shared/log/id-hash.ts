import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'

/**
 * The one hash behind IDs derived from their parts (SQS group and
 * deduplication IDs, schedule names, `idempotentId()`): SHA-256 of the UTF-8
 * text, synchronous and the same in browsers and Node, in the encoding and
 * length each caller has always used. Those IDs are persisted or seen by
 * AWS, so a caller's format never changes (test/shared/log/id-hash.test.ts).
 *
 * @example
 * idHash(JSON.stringify([sessionId, name]), 'hex') // 64 hex digits
 * idHash(JSON.stringify(parts), 'base64url', 24) // 32 characters, no padding
 */
export function idHash(text: string, encoding: 'hex' | 'base64url', bytes = 32): string {
  const digest = sha256(utf8ToBytes(text)).subarray(0, bytes)
  if (encoding === 'hex') return bytesToHex(digest)
  let binary = ''
  for (const byte of digest) binary += String.fromCharCode(byte)
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')
}

/**
 * cyrb53, twice with different seeds: a 106-bit digest in base 36 that
 * shortens A2's own derived event IDs past the length limit
 * (`derivedId()`). Not SHA-256 like the others because those IDs are already
 * in stored logs: a retried decision after an upgrade must derive the same ID.
 */
export function shortDigest(text: string): string {
  return `${cyrb53(text, 1)}${cyrb53(text, 2)}`
}

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
