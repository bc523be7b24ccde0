import { describe, expect, it } from 'vitest'
import type { WakeUp } from '../../../../shared/runtime/wake-up.ts'
import { WakeUpLedger } from '../../../../shared/testing/simulator/wake-up-ledger.ts'

const at = (index: number, life = 'L1') => ({ life, index })
const generation = (index: number, life = 'L1'): WakeUp => ({
  sessionId: 's',
  lane: 'generation',
  at: at(index, life),
})
const none = new Set<string>()

describe('the wake-up ledger: every wake-up the routing owed, given by a fast path', () => {
  it('counts a send of the same lane for that news or later news of the same life, after the commit', () => {
    const ledger = new WakeUpLedger()
    ledger.owe(1, [generation(5)], 100, none)
    ledger.sent([generation(7)], 130)
    expect(ledger.broken('s')).toEqual([])
    expect(ledger.latestMs).toBe(30)
  })

  it('does not count a send for older news, another life, another lane, or one before the commit', () => {
    for (const send of [
      { wakeUp: generation(4), time: 120 },
      { wakeUp: generation(9, 'L2'), time: 120 },
      { wakeUp: { ...generation(5), lane: 'admission' }, time: 120 },
      { wakeUp: generation(5), time: 90 },
    ]) {
      const ledger = new WakeUpLedger()
      ledger.owe(1, [generation(5)], 100, none)
      ledger.sent([send.wakeUp], send.time)
      expect(ledger.broken('s')).toEqual([
        expect.stringMatching(
          /the generation wake-up for #5 \(life L1\), owed by p1's append .* was never sent by a fast path/,
        ),
      ])
    }
  })

  it("counts a run of the lane on a fast path's message after the commit, not a run the router's copy or a recovery started", () => {
    const fast = new WakeUpLedger()
    fast.owe(1, [generation(5)], 100, none)
    fast.ran(generation(3), 'fast', 150)
    expect(fast.broken('s')).toEqual([])
    for (const origin of ['router', 'recovery'] as const) {
      const backstop = new WakeUpLedger()
      backstop.owe(1, [generation(5)], 100, none)
      backstop.ran(generation(5), origin, 150)
      expect(backstop.broken('s')).toHaveLength(1)
    }
  })

  it('excuses a writer that died or heard a failure after its commit, and the lane a dead letter gave up on', () => {
    const died = new WakeUpLedger()
    died.owe(1, [generation(5)], 100, none)
    died.excuse(1, 101)
    expect(died.broken('s')).toEqual([])
    // Another process's excuse, or one before the commit, excuses nothing.
    const other = new WakeUpLedger()
    other.owe(1, [generation(5)], 100, none)
    other.excuse(2, 101)
    other.excuse(1, 99)
    expect(other.broken('s')).toHaveLength(1)
    const deadLettered = new WakeUpLedger()
    deadLettered.owe(1, [generation(5)], 100, new Set(['generation']))
    expect(deadLettered.broken('s')).toEqual([])
  })

  it('fails a wake-up that came more than 2 s after its commit, unless its writer froze or heard a failure in between', () => {
    const late = new WakeUpLedger()
    late.owe(1, [generation(5)], 100, none)
    late.sent([generation(5)], 2_200)
    expect(late.broken('s')).toEqual([expect.stringMatching(/came 2100 ms after its commit/)])
    const frozen = new WakeUpLedger()
    frozen.owe(1, [generation(5)], 100, none)
    frozen.froze(1, 150)
    frozen.sent([generation(5)], 60_000)
    expect(frozen.broken('s')).toEqual([])
    expect(frozen.latestMs).toBe(59_900)
    // A freeze after the send holds nothing back.
    const after = new WakeUpLedger()
    after.owe(1, [generation(5)], 100, none)
    after.froze(1, 3_000)
    after.sent([generation(5)], 2_500)
    expect(after.broken('s')).toHaveLength(1)
  })

  it("owes nothing for a wake-up that names no news (a recovery's), and reports per session", () => {
    const ledger = new WakeUpLedger()
    ledger.owe(1, [{ sessionId: 's', lane: 'admission', key: 'recover' }], 100, none)
    ledger.owe(1, [{ ...generation(5), sessionId: 'other' }], 100, none)
    expect(ledger.broken('s')).toEqual([])
    expect(ledger.broken('other')).toHaveLength(1)
  })
})
