import { describe, expect, it } from 'vitest'
import { describeReport, runSoak } from './soak.ts'
import { embedded } from './targets.ts'

// The soak, sampled: `npm run soak` runs 200 sessions (and the local
// pipeline with kills); `npm test` runs a smaller one of the same kind on
// every commit. A2_SOAK_SEED reruns a printed seed.

const seed = Number(process.env.A2_SOAK_SEED ?? 20261201)

describe('the soak on the embedded default (sampled)', () => {
  it('40 concurrent sessions of 3 turns through the Gateway double: every turn ends, nothing waits on nothing, no event lost or duplicated, tools within the seeds, model calls never overlap', async () => {
    const report = await runSoak({ sessions: 40, turns: 3, seed, target: embedded })
    const summary = describeReport(report)
    expect(report.failures, summary).toEqual([])
    // The plans exercised what the soak is for.
    expect(
      Object.values(report.kinds).every((count) => count > 0),
      summary,
    ).toBe(true)
    expect(report.compactions, summary).toBeGreaterThan(0)
    expect(report.reminders, summary).toBeGreaterThan(0)
  }, 60_000)
})
