import { describe, expect, it } from 'vitest'
import { FAULT_KINDS } from '../../shared/testing/simulator/index.ts'
import { expectSeedsPass } from './seed-range.ts'

// Half of npm test's sample of simulated runs (the other half is its own
// file, so the two run on both cores): 80 seeds, chosen so that every fault
// kind strikes and sessions' lives, freezes and snapshots all happen (seeds
// 1-40 alone: 28 restarts, 40 freezes, snapshots read in 13 runs). The
// sample was 200 seeds, which took a sixth of the suite's time; `npm run
// simulate -- --seeds 10000` runs many more, and the put-back tests run
// their own seeds.
describe('the simulator, seeds 1 to 40', () => {
  it('every session of every run quiesces with every invariant holding', async () => {
    const reports = await expectSeedsPass(1, 40)
    // Every fault kind struck somewhere (the clock's skew is a setting, not an event).
    const struck = new Set(reports.flatMap((report) => Object.keys(report.figures.faults)))
    expect(FAULT_KINDS.filter((kind) => kind !== 'clock.skew' && !struck.has(kind))).toEqual([])
    expect(reports.some((report) => report.figures.kills > 0)).toBe(true)
    // Sessions' lives: sessions erased and started over while the processes
    // that served them live on, and processes frozen past their claims.
    expect(reports.reduce((sum, report) => sum + report.figures.restarts, 0)).toBeGreaterThan(10)
    expect(reports.reduce((sum, report) => sum + report.figures.freezes, 0)).toBeGreaterThan(10)
    // Long sessions: cold processes read them from a stored reducer snapshot.
    expect(reports.filter((report) => report.figures.snapshotsRead > 0).length).toBeGreaterThan(10)
  }, 120_000)
})
