import { describe, expect, it } from 'vitest'
import { checkSessions, sessionFromExport } from '../../../../shared/testing/index.ts'
import { calledNotRun, exportCopy, recordedExport } from '../../../support/recorded-export.ts'

// The CI step's budget is 10,000 sessions in a minute on 2 cores
// (test/bench/compatibility-check.bench.ts measures it through the CLI);
// a tenth of the sessions gets a tenth of the budget here.
const SESSIONS = 1_000
const BUDGET_MS = 6_000

describe('checkSessions speed', () => {
  it(`checks ${SESSIONS} exported sessions (three turns, a tool call) within a tenth of the CI budget`, async () => {
    const template = await recordedExport()
    const exports = Array.from({ length: SESSIONS }, (_, n) => {
      const copy = exportCopy(template, 'template', `s${n}`)
      return n % 10 === 0 ? calledNotRun(copy) : copy
    })
    const started = performance.now()
    const report = await checkSessions({
      agent: { options: { tools: {} } },
      sessions: exports.map((jsonl, n) => sessionFromExport(jsonl, `s${n}.jsonl`)),
    })
    const elapsed = performance.now() - started
    // Work was done: every tenth session's pending call names a tool the agent lacks.
    expect(report.sessions).toBe(SESSIONS)
    expect(report.broken).toHaveLength(SESSIONS / 10)
    expect(elapsed).toBeLessThan(BUDGET_MS)
  })
})
