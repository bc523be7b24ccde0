import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs'
import { z } from 'zod'
import { checkMessages } from '../agent/session/message-check.ts'
import type { EventInput, NewEvent } from '../log/event.ts'
import { idHash } from '../log/id-hash.ts'
import { MAX_EVENTS_PER_APPEND } from '../log/limits.ts'
import { encodeBatch } from '../stores/payload-codec.ts'
import { PipelineError } from './errors.ts'
import { parseQueueMessage } from './queue-message.ts'
import { sqsGroupId } from './sqs-id.ts'

/** What internal services put on the ingress queue: events for one session. */
export interface IngressMessage {
  sessionId: string
  events: NewEvent[]
}

/** SQS takes messages of up to 1 MiB (SQS developer guide, "Amazon SQS message quotas"). */
const MAX_SQS_MESSAGE_BYTES = 1024 * 1024

/**
 * Reads an ingress message body. A body that is not `{ sessionId, events }`
 * with at least one `{ type, payload }` event is a `MALFORMED_INGRESS_MESSAGE`
 * error naming what is wrong.
 */
export function parseIngressMessage(body: string): { sessionId: string; events: EventInput[] } {
  const { sessionId, events } = parseQueueMessage(
    body,
    ingressMessageSchema,
    (why, cause) => {
      throw new PipelineError(
        'MALFORMED_INGRESS_MESSAGE',
        `Ingress message refused: ${why}. Expected {"sessionId": "...", "events": [{"type": "...", "payload": ...}]}`,
        cause === undefined ? undefined : { cause },
      )
    },
    'the body is not JSON',
  )
  // Each has its payload (refined above); zod's type cannot say so.
  return { sessionId, events: events as EventInput[] }
}

const nonEmptyString = (message: string) => z.string({ error: message }).min(1, { error: message })

// Events keep every field they came with (the log checks the rest).
const ingressEventSchema = z
  .looseObject(
    {
      id: z.string({ error: 'must be a string' }).optional(),
      type: nonEmptyString('must be a non-empty string'),
      payload: z.unknown().optional(),
    },
    { error: 'is not an object' },
  )
  // Present, even as null: JSON has no undefined.
  .refine((event) => Object.hasOwn(event, 'payload'), { error: 'is missing', path: ['payload'] })

const ingressMessageSchema = z.object(
  {
    sessionId: nonEmptyString('"sessionId" must be a non-empty string'),
    events: z
      .array(ingressEventSchema, { error: '"events" must be a non-empty array' })
      .min(1, { error: '"events" must be a non-empty array' })
      // One message is one append: the store's limit, from its one source.
      .max(MAX_EVENTS_PER_APPEND, {
        error: (issue) =>
          `"events" holds ${(issue.input as unknown[]).length} events; one message is one append, which holds at most ${MAX_EVENTS_PER_APPEND}`,
      }),
  },
  { error: 'the body is not a JSON object' },
)

/**
 * Sends events built with `inputs` to a session through the ingress queue,
 * for services that should not call the HTTP API. Events without an ID get
 * one here, so a redelivered message appends once; the deduplication ID is
 * derived from the event IDs, so sending the same events twice within five
 * minutes is one message.
 *
 * What one append cannot hold is refused here, before sending (a
 * `BATCH_TOO_LARGE` or `EVENT_TOO_LARGE` error, as the store would give; a
 * `MALFORMED_INGRESS_MESSAGE` error above SQS's message size; an
 * `INVALID_EVENT` error for a message the AI SDK's UI message schemas
 * refuse, as the agent's append would): SQS would take
 * such a message, then every receive would fail and block the session's
 * message group until it reached the dead-letter queue. Send more events as
 * several calls.
 *
 * @example
 * await sendInputs({ client: new SQSClient({}), queueUrl }, 'session-1',
 *   ...inputs.message({ role: 'user', parts: [{ type: 'text', text: 'Order shipped' }] }))
 */
export async function sendInputs(
  target: { client: SQSClient; queueUrl: string },
  sessionId: string,
  ...events: EventInput[]
): Promise<IngressMessage> {
  const message: IngressMessage = {
    sessionId,
    events: events.map((event) => ({ ...event, id: event.id ?? crypto.randomUUID() })),
  }
  encodeBatch(message.events)
  const body = JSON.stringify(message)
  const bytes = Buffer.byteLength(body)
  if (bytes > MAX_SQS_MESSAGE_BYTES) {
    throw new PipelineError(
      'MALFORMED_INGRESS_MESSAGE',
      `Ingress message refused: it is ${bytes} bytes; SQS takes at most ${MAX_SQS_MESSAGE_BYTES}. Send the events in several calls, or store large content elsewhere and put a reference in the event`,
    )
  }
  parseIngressMessage(body)
  // A message the agent's append would refuse (INVALID_EVENT) is refused
  // here for the same reason as an oversized one.
  await checkMessages(message.events)
  await target.client.send(
    new SendMessageCommand({
      QueueUrl: target.queueUrl,
      MessageBody: body,
      MessageGroupId: sqsGroupId(sessionId),
      MessageDeduplicationId: idHash(
        JSON.stringify([sessionId, message.events.map((event) => event.id)]),
        'hex',
      ),
    }),
  )
  return message
}
