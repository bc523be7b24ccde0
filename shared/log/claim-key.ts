/**
 * The key a claim is stored under in one life of its session: `key@life`.
 * Claims of different lives are different items, so a process still holding
 * (or taking, or renewing) a claim of an ended life never meets the new
 * life's claim of the same work, nor tells its next taker that an attempt
 * was interrupted. A session written before lives (life `''`) keeps the
 * plain key. Every reader of a claim (the lanes' claims, the inspector)
 * names it so.
 *
 * @example
 * claimKeyOfLife('gen:a2.ai:request:m1:1', 'k2Xq9wT4bZ1p') // 'gen:a2.ai:request:m1:1@k2Xq9wT4bZ1p'
 */
export function claimKeyOfLife(key: string, life: string | undefined): string {
  return life === undefined || life === '' ? key : `${key}@${life}`
}
