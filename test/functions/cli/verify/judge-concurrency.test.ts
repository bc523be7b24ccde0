import { describe, expect, it } from 'vitest'
import { judgeConcurrency } from '../../../../functions/cli/verify/judge-concurrency.ts'

describe("the concurrency check: the account's Lambda quota as the last deploy found it", () => {
  it("warns at a new account's quota of 10: nothing reserved, streams share the 10 units with the lanes", () => {
    const outcome = judgeConcurrency({
      lanes: 140,
      streamsRequested: 100,
      streamsReserved: 0,
      accountLimit: 10,
    })
    expect(outcome.status).toBe('WARN')
    expect(outcome.detail).toBe(
      `the account's Lambda concurrency quota was 10 at the last deploy: nothing could be reserved for GET streams, which share those 10 units with lanes whose event sources may run 140 invocations in all, so a few open tabs throttle every lane; ask for 1,000 (Service Quotas, AWS Lambda, "Concurrent executions"), then redeploy: the reservation is recomputed on every deploy`,
    )
    expect(outcome.figures).toEqual({
      accountLimit: 10,
      streamsReserved: 0,
      streamsRequested: 100,
      lanes: 140,
    })
  })

  it('warns when less was reserved than asked, and passes when all of it was', () => {
    expect(
      judgeConcurrency({
        lanes: 140,
        streamsRequested: 100,
        streamsReserved: 60,
        accountLimit: 160,
      }),
    ).toMatchObject({
      status: 'WARN',
      detail: expect.stringMatching(/^60 of the 100 asked reserved/),
    })
    expect(
      judgeConcurrency({
        lanes: 140,
        streamsRequested: 100,
        streamsReserved: 100,
        accountLimit: 1000,
      }),
    ).toMatchObject({
      status: 'PASS',
      detail:
        "100 of the account's 1000 concurrent executions reserved for GET streams at the last deploy",
    })
  })

  it('skips a stack without a reservation or without the figures', () => {
    expect(judgeConcurrency({ lanes: 140 }).status).toBe('SKIP')
    expect(judgeConcurrency(undefined).detail).toMatch(/redeploy/)
  })
})
