import { STREAM_ENDED, STREAM_OPENED } from '../../../shared/aws/lambda/stream-log-lines.ts'
import { type CheckOutcome, duration, fail, pass } from './check-result.ts'

/** A closed client's invocation should end within this. */
export const PROMPT_END_MS = 30_000

/** A log line of the stream function, parsed (Powertools lines and Lambda's JSON platform records). */
export type LogRecord = Record<string, unknown>

export interface StreamInvocation {
  requestId: string
  /** The handler's own `a2: stream ended` line, when it wrote one. */
  ended?: { reason: string; durationMs: number }
}

/**
 * The invocation that served `sessionId`'s GET stream: the request ID on its
 * `a2: stream opened` line (Powertools' `function_request_id`), and its
 * `a2: stream ended` line if there is one.
 */
export function streamInvocation(
  records: readonly LogRecord[],
  sessionId: string,
): StreamInvocation | undefined {
  const opened = records.find(
    (record) => record.message === STREAM_OPENED && record.sessionId === sessionId,
  )
  const requestId = opened?.function_request_id
  if (typeof requestId !== 'string') return undefined
  const ended = records.find(
    (record) =>
      record.message === STREAM_ENDED &&
      record.sessionId === sessionId &&
      record.function_request_id === requestId,
  )
  return {
    requestId,
    ...(ended
      ? { ended: { reason: String(ended.reason), durationMs: Number(ended.durationMs) } }
      : {}),
  }
}

/**
 * The invocation's REPORT: Lambda's JSON log format writes it as a
 * `platform.report` record, `{ type, record: { requestId, metrics: { durationMs } } }`.
 */
export function reportOf(
  records: readonly LogRecord[],
  requestId: string,
): { durationMs: number } | undefined {
  for (const entry of records) {
    if (entry.type !== 'platform.report') continue
    const record = entry.record as { requestId?: unknown; metrics?: { durationMs?: unknown } }
    if (record?.requestId !== requestId) continue
    const durationMs = record.metrics?.durationMs
    if (typeof durationMs === 'number') return { durationMs }
  }
  return undefined
}

export interface ClosedObservation {
  /** From the stream's first frame to the client closing it (client clock). */
  heldMs: number
  /** How long after the close the logs were searched. */
  waitedMs: number
  invocation?: StreamInvocation
  report?: { durationMs: number }
  /** Why the logs could not be read, if they could not. */
  error?: string
}

/**
 * Did the invocation end promptly once its client left? Its REPORT duration
 * less the time the client held the stream is how long it ran on (a little
 * more: the time to the first frame counts too); no clocks are compared.
 */
export function judgeClosed(observation: ClosedObservation): CheckOutcome {
  const { heldMs, waitedMs, invocation, report, error } = observation
  if (error !== undefined) return fail(`could not read the stream function's logs: ${error}`)
  if (!invocation) {
    return fail(
      `no '${STREAM_OPENED}' line for the stream in the stream function's logs ${duration(waitedMs)} after it closed (are its INFO lines reaching CloudWatch Logs?)`,
      { heldMs, waitedMs },
    )
  }
  const how = invocation.ended ? `, its handler saw: ${invocation.ended.reason}` : ''
  if (!report) {
    return fail(
      `invocation ${invocation.requestId} was still running ${duration(waitedMs)} after the client closed (no REPORT yet${how}): it holds a stream until the function's deadline`,
      { heldMs, waitedMs },
    )
  }
  const ranOnMs = Math.max(0, report.durationMs - heldMs)
  const figures = { heldMs, reportDurationMs: report.durationMs, ranOnMs }
  const said = `REPORT ${duration(report.durationMs)}, stream held ${duration(heldMs)}${how}`
  if (ranOnMs > PROMPT_END_MS) {
    return fail(
      `the invocation ran on ${duration(ranOnMs)} after the client closed (${said}); within ${duration(PROMPT_END_MS)} expected`,
      figures,
    )
  }
  return pass(
    `the invocation ended within ${duration(ranOnMs)} of the client closing (${said})`,
    figures,
  )
}
