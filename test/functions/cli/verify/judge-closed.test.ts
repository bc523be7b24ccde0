import { describe, expect, it } from 'vitest'
import {
  judgeClosed,
  type LogRecord,
  reportOf,
  streamInvocation,
} from '../../../../functions/cli/verify/judge-closed.ts'

const SESSION = 'a2-verify-k3j2-closed'
const REQUEST = 'c6af9ac6-7b61-4a3e-9d0e-1f2a3b4c5d6e'

/** A line as Powertools' Logger writes it with the Lambda context added. */
const powertools = (
  message: string,
  extra: Record<string, unknown>,
  requestId = REQUEST,
): LogRecord => ({
  level: 'INFO',
  message,
  timestamp: '2026-11-29T12:00:01.250Z',
  service: 'a2',
  cold_start: false,
  function_arn: 'arn:aws:lambda:eu-west-1:123456789012:function:Support-AgentStreamFunction',
  function_memory_size: '1024',
  function_name: 'Support-AgentStreamFunction',
  function_request_id: requestId,
  ...extra,
})
/** Lambda's REPORT in the JSON log format. */
const report = (requestId: string, durationMs: number): LogRecord => ({
  time: '2026-11-29T12:00:03.364Z',
  type: 'platform.report',
  record: {
    requestId,
    metrics: {
      durationMs,
      billedDurationMs: Math.ceil(durationMs),
      memorySizeMB: 1024,
      maxMemoryUsedMB: 131,
    },
    status: 'success',
  },
})

describe('the closed check: a closed client ends its Lambda invocation promptly', () => {
  it("finds the stream's invocation by its session on the handler's lines, and its REPORT by request ID", () => {
    const lines = [
      powertools('a2: stream opened', { sessionId: 'someone-else' }, 'other-request'),
      powertools('a2: stream opened', { sessionId: SESSION }),
      powertools('a2: stream ended', {
        sessionId: SESSION,
        durationMs: 2_050,
        reason: 'client gone',
      }),
    ]
    expect(streamInvocation(lines, SESSION)).toEqual({
      requestId: REQUEST,
      ended: { reason: 'client gone', durationMs: 2_050 },
    })
    expect(streamInvocation(lines.slice(0, 2), SESSION)).toEqual({ requestId: REQUEST })
    expect(streamInvocation(lines.slice(0, 1), SESSION)).toBeUndefined()
    const reports = [report('other-request', 900_000), report(REQUEST, 2_113.52)]
    expect(reportOf(reports, REQUEST)).toEqual({ durationMs: 2_113.52 })
    expect(reportOf([report('other-request', 1)], REQUEST)).toBeUndefined()
  })

  it('passes an invocation whose REPORT ends within 30 s of the client closing', () => {
    const result = judgeClosed({
      heldMs: 1_500,
      waitedMs: 8_000,
      invocation: { requestId: REQUEST, ended: { reason: 'client gone', durationMs: 2_050 } },
      report: { durationMs: 2_113.52 },
    })
    expect(result.status).toBe('PASS')
    expect(result.detail).toBe(
      'the invocation ended within 614 ms of the client closing (REPORT 2.1 s, stream held 1.5 s, its handler saw: client gone)',
    )
    expect(result.figures).toEqual({ heldMs: 1_500, reportDurationMs: 2_113.52, ranOnMs: 613.52 })
  })

  it('fails an invocation that ran on long after its client left, with the figure', () => {
    const result = judgeClosed({
      heldMs: 1_500,
      waitedMs: 60_000,
      invocation: { requestId: REQUEST },
      report: { durationMs: 46_500 },
    })
    expect(result.status).toBe('FAIL')
    expect(result.detail).toMatch(/^the invocation ran on 45\.0 s after the client closed/)
  })

  it('fails an invocation that has no REPORT by the end of the wait: it is still running', () => {
    const result = judgeClosed({
      heldMs: 1_500,
      waitedMs: 75_000,
      invocation: { requestId: REQUEST },
    })
    expect(result.status).toBe('FAIL')
    expect(result.detail).toBe(
      `invocation ${REQUEST} was still running 75.0 s after the client closed (no REPORT yet): it holds a stream until the function's deadline`,
    )
  })

  it('fails, saying why, when the logs show no stream or cannot be read', () => {
    expect(judgeClosed({ heldMs: 1_500, waitedMs: 75_000 }).detail).toMatch(
      /^no 'a2: stream opened' line for the stream/,
    )
    expect(
      judgeClosed({ heldMs: 0, waitedMs: 0, error: 'AccessDeniedException: logs:FilterLogEvents' })
        .detail,
    ).toBe("could not read the stream function's logs: AccessDeniedException: logs:FilterLogEvents")
  })
})
