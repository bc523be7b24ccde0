import type { StoredEvent } from '../../../shared/log/event.ts'
import { inputs } from '../../../shared/model/inputs/inputs.ts'
import { type CheckOutcome, duration, fail } from './check-result.ts'
import { judgeAnswer } from './judge-answer.ts'
import type { TimedFrame } from './judge-streaming.ts'
import { headOf, monotonicNow, openSse, type SseConnection } from './sse-connection.ts'
import { errorText, sessionUrl, type VerifyTarget } from './verify-target.ts'

/** How long a fresh stream may take to send its `: head N` comment. */
export const HEAD_TIMEOUT_MS = 30_000

export interface AnswerRun {
  outcome: CheckOutcome
  /** The answer's event frames, for the streaming check. */
  frames: TimedFrame[]
}

/**
 * The answer check: opens the fresh session's stream, waits for its `: head
 * N`, POSTs a user message and reads until the assistant's message completes
 * (or the session says why it will not). Every event frame after the head
 * is kept with its arrival time for the streaming check.
 */
export async function runAnswerCheck(
  target: VerifyTarget,
  { sessionId, message, timeoutMs }: { sessionId: string; message: string; timeoutMs: number },
): Promise<AnswerRun> {
  const now = target.now ?? monotonicNow
  let connection: SseConnection
  try {
    connection = await openSse(sessionUrl(target.url, sessionId), target)
  } catch (error) {
    return { outcome: fail(`could not open the session's stream: ${errorText(error)}`), frames: [] }
  }
  try {
    const head = await connection.next((frame) => headOf(frame) !== undefined, HEAD_TIMEOUT_MS)
    if (typeof head === 'string') {
      return {
        outcome: fail(
          `the stream sent no ': head N' comment (${head} after ${duration(HEAD_TIMEOUT_MS)})`,
        ),
        frames: [],
      }
    }
    const headIndex = headOf(head) as number
    const postedAt = now()
    const headers = new Headers(target.headers as [string, string][])
    headers.set('content-type', 'application/json')
    const response = await (target.fetch ?? fetch)(sessionUrl(target.url, sessionId), {
      method: 'POST',
      headers,
      body: JSON.stringify({
        events: inputs.message({
          id: `${sessionId}-hello`,
          role: 'user',
          parts: [{ type: 'text', text: message }],
        }),
      }),
    })
    const body = await response.text()
    if (!response.ok) {
      return {
        outcome: fail(`POST answered ${response.status}: ${body.slice(0, 300)}`),
        frames: [],
      }
    }
    const end = await connection.next(
      (frame) => frame.kind === 'event' && isFinal(frame.event),
      timeoutMs,
    )
    const events = connection.frames.flatMap((frame) =>
      frame.kind === 'event' && frame.event.index > headIndex ? [frame] : [],
    )
    const endedAt = end === 'ended' ? connection.endedAt() : undefined
    return {
      outcome: judgeAnswer({
        postedAt,
        events,
        timeoutMs,
        ...(endedAt === undefined ? {} : { endedAt }),
      }),
      frames: events.map(({ at, event }) => ({ serverMs: event.timestamp, arrivedMs: at })),
    }
  } catch (error) {
    return { outcome: fail(errorText(error)), frames: [] }
  } finally {
    connection.close()
  }
}

/** The answer is done, or will not come: no point waiting on. */
function isFinal(event: StoredEvent): boolean {
  const payload = (event.payload ?? {}) as { outcome?: unknown }
  return (
    event.type === 'ai.message.completed' ||
    event.type === 'ai.handler.dead-lettered' ||
    (event.type === 'ai.control.decided' && payload.outcome === 'rejected')
  )
}
