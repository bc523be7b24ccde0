import { z } from 'zod'
import type { NewEvent } from '../log/event.ts'
import type { Timer } from '../runtime/scheduler.ts'
import { PipelineError } from './errors.ts'
import { parseQueueMessage } from './queue-message.ts'

/** Marks a timer queue message, so nothing else is mistaken for one. */
const TIMER_MESSAGE_KIND = 'a2.timer'

/** The body a due timer arrives with, from EventBridge Scheduler or an SQS delay. */
export function timerMessageBody(timer: Timer): string {
  return JSON.stringify({
    kind: TIMER_MESSAGE_KIND,
    sessionId: timer.sessionId,
    name: timer.name,
    at: timer.at,
    events: timer.events,
    ...(timer.setIn ? { setIn: timer.setIn } : {}),
  })
}

const nonEmptyString = (message: string) => z.string({ error: message }).min(1, { error: message })

// A timer's events were checked when it was set; they keep every field.
const timerEventSchema = z.looseObject(
  {
    id: z.string({ error: 'must be a string' }),
    type: z.string({ error: 'must be a string' }),
    payload: z.unknown().optional(),
  },
  { error: 'is not an object' },
)

const timerMessageSchema = z.object(
  {
    kind: z.literal(TIMER_MESSAGE_KIND, {
      error: (issue) => `"kind" is ${JSON.stringify(issue.input)}, not "${TIMER_MESSAGE_KIND}"`,
    }),
    sessionId: nonEmptyString('"sessionId" must be a non-empty string'),
    name: nonEmptyString('"name" must be a non-empty string'),
    at: z.number({ error: '"at" must be epoch milliseconds' }),
    events: z
      .array(timerEventSchema, { error: '"events" must be a non-empty array' })
      .min(1, { error: '"events" must be a non-empty array' }),
    setIn: z
      .object(
        { firstId: z.string(), firstAt: z.number() },
        { error: '"setIn" must be { firstId, firstAt }' },
      )
      .optional(),
  },
  { error: 'the body is not an object' },
)

/** Reads a timer message body; anything else is a `MALFORMED_TIMER_MESSAGE` error. */
export function parseTimerMessage(body: string): Timer {
  const { sessionId, name, at, events, setIn } = parseQueueMessage(
    body,
    timerMessageSchema,
    (why, cause) => {
      throw new PipelineError(
        'MALFORMED_TIMER_MESSAGE',
        `Not a timer message: ${why}`,
        cause === undefined ? undefined : { cause },
      )
    },
    'the body is not JSON',
  )
  // The runtime wrote these events (each a NewEvent) when it set the timer.
  return {
    sessionId,
    name,
    at,
    events: events as NewEvent[],
    ...(setIn ? { setIn } : {}),
  }
}
