import type { AIState, VersionPin } from '../state/ai-state.ts'

/**
 * Which version's code runs a session's turn work after a deploy:
 * - `'turn'` (the default): a turn finishes on the version that started its
 *   first step; the next turn starts on whichever version takes it (on
 *   AWS, the newest), so a session moves at its turn boundary.
 * - `'pinned'`: the whole life of a session stays on the version of its
 *   first step.
 * - `'latest'`: every step runs on the code of the process that takes it.
 */
export type VersionPolicy = 'turn' | 'pinned' | 'latest'

/** A day: long enough for an approval to be answered, short enough that a deploy's old code drains. */
export const DEFAULT_PINNED_FOR_MS = 24 * 3600_000

export interface PinRule {
  /** The version this process runs. */
  version: string
  policy: VersionPolicy
  /** A pin older than this moves to the process that meets it, under the in-flight rules (docs/deploy.md). */
  pinnedForMs: number
}

/**
 * The pin a session's turn work should run under, when it is another
 * version's than this process's and still holds: the work goes to the
 * pin's route. Undefined: run here (no pin, this version's, a `latest`
 * policy, or a pin past its bound).
 */
export function pinElsewhere(state: AIState, rule: PinRule, now: number): VersionPin | undefined {
  if (rule.policy === 'latest') return undefined
  const pin = rule.policy === 'pinned' ? (state.versionPin ?? null) : (state.active?.pin ?? null)
  if (pin === null || pin.version === rule.version) return undefined
  if (now - pin.since >= rule.pinnedForMs) return undefined
  return pin
}
