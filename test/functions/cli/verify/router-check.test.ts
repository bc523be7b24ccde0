import { describe, expect, it } from 'vitest'
import { judgeRouter } from '../../../../functions/cli/verify/judge-router.ts'
import type { LogSearch } from '../../../../functions/cli/verify/log-search.ts'
import { runRouterCheck } from '../../../../functions/cli/verify/router-check.ts'

// The arithmetic and the error path only: what the router's log holds on a
// real deploy is AWS's (npm run verify -- --stack).
const report = (requestId: string) => ({ type: 'platform.report', record: { requestId } })

describe("the router check: the stream router's invocations per turn over verify's run", () => {
  it("counts the router's REPORT records since verify started and divides by the turns answered", async () => {
    const asked: [string, number][] = []
    const searchLogs: LogSearch = async (pattern, startTime) => {
      asked.push([pattern, startTime])
      // A non-REPORT line that matched anyway is not an invocation.
      return [report('a'), report('b'), { type: 'platform.start' }, report('c')]
    }
    const outcome = await runRouterCheck({
      searchLogs,
      since: 1_000_000,
      turns: 1,
      settleMs: 0,
      now: () => 1_000_000 + 200_000,
    })
    expect(asked).toEqual([['{ $.type = "platform.report" }', 1_000_000]])
    expect(outcome).toEqual({
      status: 'PASS',
      detail: '3 router invocations per turn (3 for 1 turn over the 200 s of this run)',
      figures: { invocations: 3, turns: 1, perTurnTimes10: 30 },
    })
  })

  it('fails when a turn was answered and the router never ran: its filter lets nothing through', () => {
    expect(judgeRouter({ invocations: 0, turns: 1, windowMs: 180_000 })).toMatchObject({
      status: 'FAIL',
      detail: expect.stringMatching(
        /^the router was not invoked over the 180 s of this run, though a turn was answered: its event source's filter lets no record through/,
      ),
    })
  })

  it('warns above ten per turn (streamed progress getting through), and shows fractions', () => {
    expect(judgeRouter({ invocations: 23, turns: 2, windowMs: 60_000 })).toMatchObject({
      status: 'WARN',
      detail: expect.stringMatching(/^11\.5 router invocations per turn \(23 for 2 turns/),
      figures: { perTurnTimes10: 115 },
    })
    expect(judgeRouter({ invocations: 3, turns: 2, windowMs: 60_000 }).detail).toMatch(
      /^1\.5 router invocations per turn/,
    )
  })

  it('skips without a turn to count by, and fails saying why when the logs cannot be read', async () => {
    expect(judgeRouter({ invocations: 2, turns: 0, windowMs: 60_000 }).status).toBe('SKIP')
    const denied: LogSearch = async () => {
      throw Object.assign(new Error('User is not authorized to perform: logs:FilterLogEvents'), {
        name: 'AccessDeniedException',
      })
    }
    expect(
      await runRouterCheck({ searchLogs: denied, since: 0, turns: 1, settleMs: 0 }),
    ).toMatchObject({
      status: 'FAIL',
      detail:
        "could not count the router's invocations: AccessDeniedException: User is not authorized to perform: logs:FilterLogEvents",
    })
  })
})
