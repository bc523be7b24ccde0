/**
 * A seeded source of every choice a simulation makes (mulberry32: small,
 * fast, its whole state one 32-bit number). `fork(label)` makes an
 * independent stream, so the choices of one concern (a session's plan, the
 * faults) stay the same when another concern draws more or fewer numbers.
 */
export interface Random {
  /** In [0, 1). */
  next(): number
  /** An integer in [0, n). */
  int(n: number): number
  /** An integer in [min, max]. */
  between(min: number, max: number): number
  chance(probability: number): boolean
  pick<T>(items: readonly T[]): T
  fork(label: string): Random
}

export function seededRandom(seed: number): Random {
  let state = seed >>> 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number): number => Math.floor(next() * n)
  return {
    next,
    int,
    between: (min, max) => min + int(max - min + 1),
    chance: (probability) => probability > 0 && next() < probability,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new RangeError('pick from nothing')
      return items[int(items.length)] as T
    },
    fork: (label) => seededRandom(hash32(label, seed)),
  }
}

/** FNV-1a over a string, mixed with a seed. */
export function hash32(text: string, seed = 0): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash
}
