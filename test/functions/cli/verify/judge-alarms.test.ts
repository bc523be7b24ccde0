import { describe, expect, it } from 'vitest'
import { judgeAlarms } from '../../../../functions/cli/verify/judge-alarms.ts'

describe("the alarms check: whether the stack's alarms notify anyone", () => {
  it('warns when no alarm has an action: they notify no one and still cost their metrics ($2.20 by default)', () => {
    const outcome = judgeAlarms({ count: 21, metrics: 22, notifying: 0 })
    expect(outcome.status).toBe('WARN')
    expect(outcome.detail).toBe(
      "the stack's 21 alarms have no actions: they go off and notify no one, and cost $2.20 a month (22 metrics at $0.10); give them a topic (alarms: { topic }), or drop them (alarms: false)",
    )
    expect(outcome.figures).toEqual({ alarms: 21, metrics: 22, notifying: 0 })
  })

  it('warns when some have none, and passes when every alarm notifies', () => {
    expect(judgeAlarms({ count: 21, metrics: 22, notifying: 20 })).toMatchObject({
      status: 'WARN',
      detail: expect.stringMatching(/^1 of the stack's 21 alarms have no actions/),
    })
    expect(judgeAlarms({ count: 28, metrics: 29, notifying: 28 })).toMatchObject({
      status: 'PASS',
      detail: "every one of the stack's 28 alarms notifies ($2.90 a month for 29 metrics)",
    })
  })

  it('skips a stack without alarms (alarms: false) and one deployed before the figures', () => {
    expect(judgeAlarms({ count: 0, metrics: 0, notifying: 0 }).status).toBe('SKIP')
    expect(judgeAlarms(undefined)).toMatchObject({
      status: 'SKIP',
      detail: expect.stringMatching(/redeploy/),
    })
  })
})
