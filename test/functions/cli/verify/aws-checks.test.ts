import { afterAll, describe, expect, it } from 'vitest'
import { runClosedCheck } from '../../../../functions/cli/verify/closed-check.ts'
import type { LogSearch } from '../../../../functions/cli/verify/log-search.ts'
import { runTimerCheck } from '../../../../functions/cli/verify/timer-check.ts'
import { agent } from '../../../../shared/agent/index.ts'
import { inProcessScheduler } from '../../../../shared/runtime/in-process-scheduler.ts'
import { scriptedModel } from '../../../../shared/testing/scripted-model.ts'

const silent = { info: () => {}, warn: () => {}, error: () => {} }
// Streams end after 300 ms, as API Gateway's 15 minutes would, sooner.
const assistant = agent({
  name: 'verify-target',
  model: scriptedModel([]).model,
  logger: silent,
  stream: { maxDurationMs: 300 },
})
afterAll(() => assistant.runtime.close())
const target = {
  url: 'http://agent.test/agent',
  headers: [] as [string, string][],
  fetch: (async (input, init) =>
    assistant.fetch(new Request(input as string, init))) as typeof fetch,
}

describe('the timer check', () => {
  it('keeps watching across streams that end before the timer fires, resuming after the last event', async () => {
    await assistant.runtime.log
      .session('timer-1')
      .append([{ id: 'note-1', type: 'note.added', payload: {} }])
    const requested: string[] = []
    const result = await runTimerCheck(
      {
        ...target,
        fetch: (async (input, init) => {
          requested.push(String(input))
          return target.fetch(input, init)
        }) as typeof fetch,
      },
      {
        sessionId: 'timer-1',
        scheduler: inProcessScheduler({ fire: assistant.runtime.fireTimer }),
        delayMs: 1_000,
        graceMs: 3_000,
      },
    )
    expect(result.status).toBe('PASS')
    expect(requested[0]).toBe('http://agent.test/agent?sessionId=timer-1')
    expect(requested.slice(1).length).toBeGreaterThan(0)
    for (const url of requested.slice(1)) expect(url).toMatch(/&after=[1-9]\d*$/)
  })

  it('fails with the reason when the schedule cannot be created', async () => {
    const result = await runTimerCheck(target, {
      sessionId: 'timer-2',
      scheduler: {
        schedule: async () => {
          throw Object.assign(new Error('User is not authorized to perform: iam:PassRole'), {
            name: 'AccessDeniedException',
          })
        },
        cancel: async () => 0,
      },
      delayMs: 1_000,
    })
    expect(result).toMatchObject({
      status: 'FAIL',
      detail:
        'could not create the schedule: AccessDeniedException: User is not authorized to perform: iam:PassRole',
    })
  })
})

describe('the closed check', () => {
  /** Log searches that find the stream's opened line, and its REPORT from the `reportFrom`th search on. */
  const logs = (reportFrom: number): { search: LogSearch; count: () => number } => {
    let searches = 0
    return {
      count: () => searches,
      search: async (pattern) => {
        searches++
        const session = /\$\.sessionId = "([^"]+)"/.exec(pattern)?.[1]
        if (session)
          return [{ message: 'a2: stream opened', sessionId: session, function_request_id: 'r1' }]
        return searches >= reportFrom
          ? [{ type: 'platform.report', record: { requestId: 'r1', metrics: { durationMs: 250 } } }]
          : []
      },
    }
  }

  it('keeps reading the logs until the REPORT shows', async () => {
    const late = logs(5)
    const result = await runClosedCheck(target, {
      sessionId: 'closed-1',
      searchLogs: late.search,
      waitMs: 2_000,
      pollMs: 10,
    })
    expect(result.status).toBe('PASS')
    expect(late.count()).toBeGreaterThanOrEqual(5)
  })

  it('fails when the REPORT has not shown by the end of the wait: the invocation still runs', async () => {
    const result = await runClosedCheck(target, {
      sessionId: 'closed-2',
      searchLogs: logs(Number.POSITIVE_INFINITY).search,
      waitMs: 200,
      pollMs: 50,
    })
    expect(result.status).toBe('FAIL')
    expect(result.detail).toMatch(
      /^invocation r1 was still running \d+ ms after the client closed \(no REPORT yet\)/,
    )
  })

  it('fails with the reason when the logs cannot be read', async () => {
    const result = await runClosedCheck(target, {
      sessionId: 'closed-3',
      searchLogs: async () => {
        throw Object.assign(new Error('not authorized to perform: logs:FilterLogEvents'), {
          name: 'AccessDeniedException',
        })
      },
    })
    expect(result.detail).toBe(
      "could not read the stream function's logs: AccessDeniedException: not authorized to perform: logs:FilterLogEvents",
    )
  })
})
