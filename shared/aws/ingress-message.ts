import { createHash } from 'node:crypto'
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs'
import type { EventInput, NewEvent } from '../log/event.ts'
import { MAX_EVENTS_PER_APPEND } from '../log/limits.ts'
import { encodeBatch } from '../stores/payload-codec.ts'
import { PipelineError } from './errors.ts'

/** What internal services put on the ingress queue: events for one session. */
export interface IngressMessage {
  sessionId: string
  events: NewEvent[]
}

/** SQS takes messages of up to 1 MiB (SQS developer guide, "Amazon SQS message quotas"). */
export const MAX_SQS_MESSAGE_BYTES = 1024 * 1024

/**
 * Reads an ingress message body. A body that is not `{ sessionId, events }`
 * with at least one `{ type, payload }` event is a `MALFORMED_INGRESS_MESSAGE`
 * error naming what is wrong.
 */
export function parseIngressMessage(body: string): { sessionId: string; events: EventInput[] } {
  const fail = (why: string, cause?: unknown): never => {
    throw new PipelineError(
      'MALFORMED_INGRESS_MESSAGE',
      `Ingress message refused: ${why}. Expected {"sessionId": "...", "events": [{"type": "...", "payload": ...}]}`,
      cause === undefined ? undefined : { cause },
    )
  }
  let value: unknown
  try {
    value = JSON.parse(body)
  } catch (error) {
    fail('the body is not JSON', error)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail('the body is not a JSON object')
  }
  const { sessionId, events } = value as Record<string, unknown>
  if (typeof sessionId !== 'string' || sessionId === '')
    fail('"sessionId" must be a non-empty string')
  if (!Array.isArray(events) || events.length === 0) fail('"events" must be a non-empty array')
  // One message is one append: the store's limit, from its one source.
  if ((events as unknown[]).length > MAX_EVENTS_PER_APPEND) {
    fail(
      `"events" holds ${(events as unknown[]).length} events; one message is one append, which holds at most ${MAX_EVENTS_PER_APPEND}`,
    )
  }
  ;(events as unknown[]).forEach((event, position) => {
    if (typeof event !== 'object' || event === null) fail(`events[${position}] is not an object`)
    const { id, type } = event as Record<string, unknown>
    if (typeof type !== 'string' || type === '') fail(`events[${position}] needs a string "type"`)
    if (id !== undefined && typeof id !== 'string') fail(`events[${position}].id must be a string`)
    if (!Object.hasOwn(event as object, 'payload')) fail(`events[${position}] needs a "payload"`)
  })
  return { sessionId: sessionId as string, events: events as EventInput[] }
}

// Same alphabet and length as SQS allows for group and deduplication IDs.
const SQS_ID = /^[\x21-\x7e]{1,128}$/

/**
 * Sends events built with `inputs` to a session through the ingress queue,
 * for services that should not call the HTTP API. Events without an ID get
 * one here, so a redelivered message appends once; the deduplication ID is
 * derived from the event IDs, so sending the same events twice within five
 * minutes is one message.
 *
 * What one append cannot hold is refused here, before sending (a
 * `BATCH_TOO_LARGE` or `EVENT_TOO_LARGE` error, as the store would give; a
 * `MALFORMED_INGRESS_MESSAGE` error above SQS's message size): SQS would take
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
  await target.client.send(
    new SendMessageCommand({
      QueueUrl: target.queueUrl,
      MessageBody: body,
      MessageGroupId: SQS_ID.test(sessionId)
        ? sessionId
        : `#${createHash('sha256').update(sessionId).digest('hex')}`,
      MessageDeduplicationId: createHash('sha256')
        .update(JSON.stringify([sessionId, message.events.map((event) => event.id)]))
        .digest('hex'),
    }),
  )
  return message
}
