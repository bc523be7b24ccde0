import { describe, expect, it } from 'vitest'
import { expectSeedsPass } from './seed-range.ts'

describe('the simulator, seeds 101 to 140', () => {
  it('every session of every run quiesces with every invariant holding', async () => {
    await expectSeedsPass(101, 140)
  }, 120_000)
})

// Containers that serve many sessions over hours, sampled (`npm run
// simulate -- --day --seeds N` runs more).
describe('the simulator, a day of one pool', () => {
  it('a day of one pool: 8 to 12 sessions over three hours on the same long-lived containers', async () => {
    const reports = await expectSeedsPass(1, 1, { day: true })
    for (const report of reports) {
      expect(report.figures.sessions).toBeGreaterThanOrEqual(8)
      expect(report.figures.simulatedMs).toBeGreaterThan(3600_000)
    }
  }, 120_000)
})
