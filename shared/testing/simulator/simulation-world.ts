import type { Faults } from './faults.ts'
import type { ModelSpans } from './sim-model.ts'
import type { WakeUpLedger } from './wake-up-ledger.ts'
import { World } from './world.ts'

export const START = Date.UTC(2026, 0, 1)
export const CLAIM_TTL_MS = 30_000
const MAX_KILLS = 8
const MAX_FREEZES = 4

/** The kills and freezes a run's world dealt so far (each kind capped). */
export interface Tally {
  kills: number
  freezes: number
}

/**
 * The run's world: its clock and agenda, the process kills and freezes the
 * faults deal (counted in `tally`), and what a freeze tells the model spans
 * and the wake-up ledger.
 */
export function simulatedWorld(
  maxSteps: number,
  faults: Faults,
  tally: Tally,
  spans: ModelSpans,
  wakeUpLedger: WakeUpLedger,
): World {
  const world = new World({
    start: START,
    maxSteps,
    maxDurationMs: 12 * 3600_000,
    crashAt: () => {
      if (tally.kills >= MAX_KILLS || !faults.strikes('process.killed')) return undefined
      tally.kills++
      return faults.pick(['before', 'after'] as const)
    },
    freezeAt: (_owner, label) => {
      if (tally.freezes >= MAX_FREEZES || !label.startsWith('store.append')) return undefined
      // Most often as a write goes out that a takeover decides on: a tool's
      // call or result, an approval's request (the search's bias, where a
      // freeze can do harm; every other write freezes too, at the rate).
      const decisive = /tool\.called|tool\.result|approval\.requested/.test(label)
      if (!faults.strikes('process.frozen', decisive ? 25 : 1)) return undefined
      tally.freezes++
      return {
        ms: faults.between(CLAIM_TTL_MS + 1_000, 3 * CLAIM_TTL_MS),
        racy: faults.pick([true, false]),
      }
    },
  })
  world.racyAfterMs = CLAIM_TTL_MS
  world.onFreeze((owner) => spans.frozen(owner))
  world.onFreeze((owner) => wakeUpLedger.froze(owner, world.time))
  return world
}
