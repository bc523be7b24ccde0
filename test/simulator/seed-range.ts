import { expect } from 'vitest'
import {
  describeFailure,
  type SimulationReport,
  simulate,
} from '../../shared/testing/simulator/index.ts'

/** Runs seeds `from`..`to` and expects every invariant to hold, printing each failure's trace. */
export async function expectSeedsPass(
  from: number,
  to: number,
  options: { day?: boolean; deploys?: boolean } = {},
): Promise<SimulationReport[]> {
  const reports: SimulationReport[] = []
  const failures: string[] = []
  for (let seed = from; seed <= to; seed++) {
    const report = await simulate({ seed, ...options })
    reports.push(report)
    if (report.failures.length > 0) failures.push(describeFailure(report, { traceLines: 40 }))
  }
  expect(failures.join('\n\n')).toBe('')
  return reports
}
