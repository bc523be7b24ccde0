import { describe, expect, it } from 'vitest'
import { expectSeedsPass } from './seed-range.ts'

// Issue 38's simulator deploys: at a time drawn from the seed, sim-v2 of the
// workload agent replaces sim-v1 (its closeTicket takes two-digit tickets
// only). The processes that were up finish their invocations on the old
// code while new ones start on the new, so both versions work on the same
// sessions; calls sim-v1 made are run, or refused, by sim-v2. The
// invariants hold, among them: no tool runs on input its schema, as the
// version running it has it, refuses. `npm run simulate -- --deploys
// --seeds 10000` runs many more; put-back.test.ts shows the rule is needed.
describe('the simulator with a deploy mid-run, seeds 1 to 20', () => {
  it('every session quiesces with every invariant holding, both versions having served', async () => {
    const reports = await expectSeedsPass(1, 20, { deploys: true })
    expect(reports.every((report) => report.options.deploys === true)).toBe(true)
    // The deploy met processes that were up: they drained on the old code.
    expect(reports.filter((report) => report.figures.retired > 0).length).toBe(20)
    expect(
      reports.some((report) =>
        report.trace.some((line) => line.what.includes('version sim-v2 is live')),
      ),
    ).toBe(true)
  }, 120_000)
})
