import { describe, expect, it } from 'vitest'
import { judgeTimer } from '../../../../functions/cli/verify/judge-timer.ts'

const at = Date.parse('2026-11-29T12:02:00.000Z')

describe('the timer check: a timer through the Scheduler path fires', () => {
  it("passes when the timer's event reached the session, with how late it was appended (AWS's clock)", () => {
    const result = judgeTimer({ at, fired: { timestamp: at + 23_400 }, waitedMs: 25_000 })
    expect(result).toEqual({
      status: 'PASS',
      detail: "a Scheduler timer fired 23.4 s after its time (Scheduler's precision is 60.0 s)",
      figures: { lateMs: 23_400 },
    })
  })

  it('fails when the event never came, pointing at the Scheduler DLQ and the timer function', () => {
    const result = judgeTimer({ at, waitedMs: 120_000 })
    expect(result.status).toBe('FAIL')
    expect(result.detail).toBe(
      'the timer due at 2026-11-29T12:02:00.000Z had not fired 120.0 s later: Scheduler could not deliver it (look in the Scheduler dead-letter queue) or the timer function failed (its logs)',
    )
  })

  it('fails with the reason when the schedule could not be created', () => {
    const result = judgeTimer({
      at,
      waitedMs: 0,
      error: 'AccessDeniedException: not authorized to perform: iam:PassRole',
    })
    expect(result.status).toBe('FAIL')
    expect(result.detail).toContain('could not create the schedule: AccessDeniedException')
  })
})
