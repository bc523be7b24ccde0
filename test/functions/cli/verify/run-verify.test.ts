import { afterAll, describe, expect, it } from 'vitest'
import type { CheckResult } from '../../../../functions/cli/verify/check-result.ts'
import type { LogSearch } from '../../../../functions/cli/verify/log-search.ts'
import { runVerify } from '../../../../functions/cli/verify/run-verify.ts'
import { agent } from '../../../../shared/agent/index.ts'
import { inProcessScheduler } from '../../../../shared/runtime/in-process-scheduler.ts'
import { scriptedModel, text } from '../../../../shared/testing/scripted-model.ts'

const silent = { info: () => {}, warn: () => {}, error: () => {} }
// Every answer streams 20 deltas 100 ms apart: about 2.4 s of frames.
const script = scriptedModel(() => text('word '.repeat(20), { chunks: 20 }), { chunkDelayMs: 100 })
const assistant = agent({
  name: 'verify-target',
  model: script.model,
  logger: silent,
  stream: { heartbeatMs: 200 },
})
afterAll(() => assistant.runtime.close())

const URL = 'http://agent.test/agent'
/** The agent in process, reached as over HTTP. */
const direct: typeof fetch = async (input, init) =>
  assistant.fetch(new Request(input as string, init))

/**
 * A proxy that passes a GET stream's opening through, then holds its events
 * back until the answer is complete and lets them all through at once.
 */
const buffering: typeof fetch = async (input, init) => {
  const response = await direct(input, init)
  if ((init?.method ?? 'GET') !== 'GET' || !response.body) return response
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const held: Uint8Array[] = []
      let seen = ''
      try {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) break
          seen += decoder.decode(value, { stream: true })
          if (!seen.includes('data:')) {
            controller.enqueue(value)
            continue
          }
          held.push(value)
          if (seen.includes('ai.message.completed')) {
            for (const chunk of held.splice(0)) controller.enqueue(chunk)
          }
        }
        controller.close()
      } catch {
        // Cancelled by the client.
      }
    },
    cancel: () => reader.cancel(),
  })
  return new Response(body, { status: response.status, headers: response.headers })
}

/** The stream function's logs, as CloudWatch would answer verify's two patterns. */
const searches: string[] = []
const fakeLogs: LogSearch = async (pattern) => {
  searches.push(pattern)
  const session = /\$\.sessionId = "([^"]+)"/.exec(pattern)?.[1]
  if (session) {
    return [{ message: 'a2: stream opened', sessionId: session, function_request_id: 'req-1' }]
  }
  if (pattern.includes('"req-1"')) {
    return [
      { type: 'platform.report', record: { requestId: 'req-1', metrics: { durationMs: 400 } } },
    ]
  }
  return []
}

describe('verify against an agent (in process)', () => {
  it('passes every check on an agent that streams, keeps quiet streams alive, fires timers and ends closed streams', async () => {
    const lines: CheckResult[] = []
    const report = await runVerify({
      url: URL,
      headers: [['authorization', 'Bearer t']],
      fetch: direct,
      sessionId: 'verify-direct',
      quietMs: 700,
      timerDelayMs: 300,
      timerGraceMs: 3_000,
      scheduler: inProcessScheduler({ fire: assistant.runtime.fireTimer }),
      searchStreamLogs: fakeLogs,
      closedWaitMs: 1_000,
      concurrency: { lanes: 140, streamsRequested: 100, streamsReserved: 100, accountLimit: 1000 },
      alarms: { count: 21, metrics: 22, notifying: 21 },
      searchRouterLogs: async (pattern) =>
        pattern === '{ $.type = "platform.report" }'
          ? [{ type: 'platform.report', record: { requestId: 'router-1' } }]
          : [],
      routerSettleMs: 0,
      bedrockModels: ['us.anthropic.claude-sonnet-4-5-20250929-v1:0'],
      invokeModel: async () => {},
      onResult: (result) => lines.push(result),
    })
    expect(report.results.map((result) => [result.check, result.status, result.detail])).toEqual([
      [
        'concurrency',
        'PASS',
        "100 of the account's 1000 concurrent executions reserved for GET streams at the last deploy",
      ],
      [
        'alarms',
        'PASS',
        "every one of the stack's 21 alarms notifies ($2.20 a month for 22 metrics)",
      ],
      ['models', 'PASS', expect.stringMatching(/^one-token calls answered: us\.anthropic\./)],
      ['answer', 'PASS', expect.stringMatching(/^answered: first frame after/)],
      ['streaming', 'PASS', expect.stringMatching(/ frames written over \d+\.\d s arrived over/)],
      [
        'heartbeat',
        'PASS',
        expect.stringMatching(/^a quiet stream stayed open 700 ms: \d heartbeat/),
      ],
      ['timer', 'PASS', expect.stringMatching(/^a Scheduler timer fired \d+ ms after its time/)],
      [
        'closed',
        'PASS',
        expect.stringMatching(
          /^the invocation ended within \d+ ms of the client closing \(REPORT 400 ms/,
        ),
      ],
      [
        'router',
        'PASS',
        expect.stringMatching(/^1 router invocation per turn \(1 for 1 turn over/),
      ],
    ])
    expect(lines).toEqual(report.results)
    expect(
      Number.isInteger(report.results.find((r) => r.check === 'answer')?.figures.completedMs),
    ).toBe(true)
    expect(report).toMatchObject({ ok: true, passed: 9, warned: 0, failed: 0, skipped: 0 })
    // The timer's event is on the verify session; the quiet session stayed empty.
    const events = await assistant.runtime.log.session('verify-direct').read()
    expect(events.some((event) => event.type === 'a2-verify.timer.fired')).toBe(true)
    expect(await assistant.runtime.log.session('verify-direct-quiet').read()).toEqual([])
    expect(searches).toContain('{ $.sessionId = "verify-direct-closed" }')
    expect(searches).toContain('{ $.record.requestId = "req-1" }')
  })

  it('fails the streaming check when something on the way holds the stream back, and skips the AWS checks without AWS', async () => {
    const report = await runVerify({
      url: URL,
      headers: [],
      fetch: buffering,
      sessionId: 'verify-buffered',
      checks: ['alarms', 'answer', 'streaming', 'timer', 'closed', 'router'],
    })
    expect(report.results.map((result) => [result.check, result.status])).toEqual([
      ['alarms', 'SKIP'],
      ['answer', 'PASS'],
      ['streaming', 'FAIL'],
      ['timer', 'SKIP'],
      ['closed', 'SKIP'],
      ['router', 'SKIP'],
    ])
    expect(report.results[2]?.detail).toMatch(
      /^buffered: \d+ frames the server wrote over \d+\.\d s arrived within/,
    )
    expect(report.results[3]?.detail).toMatch(/give --stack/)
    expect(report).toMatchObject({ ok: false, passed: 1, failed: 1, skipped: 4 })
  })

  it("passes the heartbeat check on an agent that ends quiet streams, saying so (': quiet' after a 'retry:')", async () => {
    const quietEnding = agent({
      name: 'verify-quiet',
      model: script.model,
      logger: silent,
      stream: { quietMs: 300, quietRetryMs: 2_000 },
    })
    try {
      const report = await runVerify({
        url: URL,
        headers: [],
        fetch: async (input, init) => quietEnding.fetch(new Request(input as string, init)),
        sessionId: 'verify-quiet-end',
        checks: ['heartbeat'],
        quietMs: 2_000,
      })
      expect(report.results).toEqual([
        expect.objectContaining({
          check: 'heartbeat',
          status: 'PASS',
          detail: expect.stringMatching(
            /^a quiet stream ended cleanly after 3\d\d ms \(': quiet', retry 2\.0 s;/,
          ),
        }),
      ])
    } finally {
      quietEnding.runtime.close()
    }
  })
})
