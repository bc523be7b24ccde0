import type { NewEvent } from '../log/event.ts'
import type { Timer } from '../runtime/scheduler.ts'
import { PipelineError } from './errors.ts'

/** Marks a timer queue message, so nothing else is mistaken for one. */
export const TIMER_MESSAGE_KIND = 'a2.timer'

/** The body a due timer arrives with, from EventBridge Scheduler or an SQS delay. */
export function timerMessageBody(timer: Timer): string {
  return JSON.stringify({
    kind: TIMER_MESSAGE_KIND,
    sessionId: timer.sessionId,
    name: timer.name,
    at: timer.at,
    events: timer.events,
  })
}

/** Reads a timer message body; anything else is a `MALFORMED_TIMER_MESSAGE` error. */
export function parseTimerMessage(body: string): Timer {
  const fail = (why: string, cause?: unknown): never => {
    throw new PipelineError(
      'MALFORMED_TIMER_MESSAGE',
      `Not a timer message: ${why}`,
      cause === undefined ? undefined : { cause },
    )
  }
  let value: unknown
  try {
    value = JSON.parse(body)
  } catch (error) {
    fail('the body is not JSON', error)
  }
  if (typeof value !== 'object' || value === null) return fail('the body is not an object')
  const { kind, sessionId, name, at, events } = value as Record<string, unknown>
  if (kind !== TIMER_MESSAGE_KIND)
    fail(`"kind" is ${JSON.stringify(kind)}, not "${TIMER_MESSAGE_KIND}"`)
  if (typeof sessionId !== 'string' || sessionId === '')
    fail('"sessionId" must be a non-empty string')
  if (typeof name !== 'string' || name === '') fail('"name" must be a non-empty string')
  if (typeof at !== 'number' || !Number.isFinite(at)) fail('"at" must be epoch milliseconds')
  if (!Array.isArray(events) || events.length === 0) fail('"events" must be a non-empty array')
  for (const event of events as unknown[]) {
    const { id, type } = (event ?? {}) as Record<string, unknown>
    if (typeof id !== 'string' || typeof type !== 'string')
      fail('each event needs a string "id" and "type"')
  }
  return {
    sessionId: sessionId as string,
    name: name as string,
    at: at as number,
    events: events as NewEvent[],
  }
}
