import type { AttributeValue } from '@aws-sdk/client-dynamodb'
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda'
import type { StoredEvent } from '../log/event.ts'
import type { WakeUp } from '../runtime/wake-up.ts'
import { storedEventFromItem } from '../stores/dynamodb/event-items.ts'
import { SK } from '../stores/dynamodb/table-keys.ts'
import type { IndexedWakeUp } from './sqs-dispatcher.ts'

/** Event items' sort keys start with this (see table-keys.ts). */
const EVENT_SK_PREFIX = 'E#'

export interface StreamRouterOptions {
  /** The agent's routing (`agent.runtime.wakeUpsFor`): the same lanes the fast path wakes. */
  wakeUpsFor(events: readonly StoredEvent[]): WakeUp[]
  /** Sends wake-ups (`sendWakeUps` with the lane queues). */
  send(wakeUps: readonly IndexedWakeUp[]): Promise<void>
  logger?: Pick<Console, 'warn' | 'error'>
}

/** A stream record's image as Lambda delivers it: binary attributes are base64 strings. */
type LambdaImage = NonNullable<NonNullable<DynamoDBRecord['dynamodb']>['NewImage']>

/**
 * The stream router, the backstop behind the fast path: it turns new event
 * items into wake-ups, one set per session, with the session's highest index
 * in the batch in the deduplication ID. Other items (heads, cursors, claims,
 * ID guards) are not news. A session whose wake-ups could not be sent is
 * reported as a batch item failure from its first record, so Lambda retries
 * from there (bisecting on repeated failure); a record that is not a
 * readable event is logged and skipped, since retrying cannot fix it.
 */
export async function routeStreamRecords(
  records: readonly DynamoDBRecord[],
  options: StreamRouterOptions,
): Promise<DynamoDBBatchResponse> {
  const logger = options.logger ?? console
  const sessions = new Map<string, { events: StoredEvent[]; sequenceNumbers: string[] }>()
  for (const record of records) {
    const image = record.dynamodb?.NewImage
    if (record.eventName !== 'INSERT' || !image || !image[SK]?.S?.startsWith(EVENT_SK_PREFIX))
      continue
    let event: StoredEvent
    try {
      event = eventFromImage(image)
    } catch (error) {
      logger.error(
        `a2 router: skipped unreadable event record ${record.eventID ?? '?'} (${image[SK]?.S}): ${error instanceof Error ? error.message : String(error)}`,
      )
      continue
    }
    const session = sessions.get(event.sessionId) ?? { events: [], sequenceNumbers: [] }
    session.events.push(event)
    if (record.dynamodb?.SequenceNumber)
      session.sequenceNumbers.push(record.dynamodb.SequenceNumber)
    sessions.set(event.sessionId, session)
  }

  const failed: string[] = []
  await Promise.all(
    [...sessions].map(async ([sessionId, { events, sequenceNumbers }]) => {
      const index = Math.max(...events.map((event) => event.index))
      const wakeUps = options.wakeUpsFor(events).map((wakeUp) => ({ wakeUp, index }))
      if (wakeUps.length === 0) return
      try {
        await options.send(wakeUps)
      } catch (error) {
        logger.warn(
          `a2 router: wake-ups for session ${sessionId} not sent, the batch will be retried: ${error instanceof Error ? error.message : String(error)}`,
        )
        failed.push(...sequenceNumbers)
      }
    }),
  )
  // Lambda resumes from the lowest failed sequence number; report just that one.
  const first = failed.sort(compareSequenceNumbers)[0]
  return { batchItemFailures: first === undefined ? [] : [{ itemIdentifier: first }] }
}

function eventFromImage(image: LambdaImage): StoredEvent {
  const item: Record<string, AttributeValue> = {}
  for (const [name, value] of Object.entries(image)) {
    item[name] =
      typeof value.B === 'string'
        ? { B: Buffer.from(value.B, 'base64') }
        : (value as unknown as AttributeValue)
  }
  const event = storedEventFromItem(item)
  if (
    typeof event.sessionId !== 'string' ||
    !Number.isSafeInteger(event.index) ||
    typeof event.type !== 'string'
  ) {
    throw new TypeError('the item lacks a session ID, index or type')
  }
  return event
}

/** Sequence numbers are decimal strings of varying length. */
function compareSequenceNumbers(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0)
}
