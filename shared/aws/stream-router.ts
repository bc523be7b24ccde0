import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda'
import type { StoredEvent } from '../log/event.ts'
import { messageOf } from '../log/message-of.ts'
import type { WakeUp } from '../runtime/wake-up.ts'
import {
  LIFE_ATTRIBUTE,
  PK,
  SESSION_PK_PREFIX,
  SK,
  TOMBSTONE_ATTRIBUTE,
} from '../stores/dynamodb/table-keys.ts'
import { decodePayload } from '../stores/payload-codec.ts'
import {
  EVENT_SK_PREFIX,
  EXPIRED_HEAD_FILTER_PATTERN,
  matchesFilterPattern,
} from './stream-filter.ts'

export interface StreamRouterOptions {
  /** The agent's routing (`agent.runtime.wakeUpsFor`): the same lanes the fast path wakes. */
  wakeUpsFor(events: readonly StoredEvent[]): WakeUp[]
  /** Sends wake-ups (`sendWakeUps` with the lane queues). */
  send(wakeUps: readonly WakeUp[]): Promise<void>
  /**
   * Retention: erases what a session left after DynamoDB's TTL deleted its
   * head, unless it has a head again (`eraseSession(..., { headless: true })`).
   */
  eraseExpired(sessionId: string): Promise<void>
  logger?: Pick<Console, 'warn' | 'error'>
}

/** A stream record's image as Lambda delivers it: binary attributes are base64 strings. */
type LambdaImage = NonNullable<NonNullable<DynamoDBRecord['dynamodb']>['NewImage']>

/**
 * The stream router, the backstop behind the fast path: it turns new event
 * items into wake-ups, one set per session, each with the highest index of
 * the events that made it in its deduplication ID. Other items (heads, cursors, claims,
 * ID guards) are not news, but for a head that DynamoDB's TTL deleted: the
 * rest of that session is erased (retention takes a session whole). A
 * session whose wake-ups could not be sent, or whose leftovers could not be
 * erased, is reported as a batch item failure from its first record, so
 * Lambda retries from there (bisecting on repeated failure; both are
 * idempotent); a record that is not a readable event is logged and skipped,
 * since retrying cannot fix it.
 */
export async function routeStreamRecords(
  records: readonly DynamoDBRecord[],
  options: StreamRouterOptions,
): Promise<DynamoDBBatchResponse> {
  const logger = options.logger ?? console
  // Per session, each wake-up at the highest index among the events that
  // made it (`at`): a lane is woken for the news it reads, and the fast
  // path's copy of that wake-up (sent once that event committed) carries the
  // same ID.
  const sessions = new Map<
    string,
    {
      events: StoredEvent[]
      wakeUps: Map<string, WakeUp & { at: { life: string; index: number } }>
      sequenceNumbers: string[]
    }
  >()
  const expired = new Map<string, string[]>()
  for (const record of records) {
    const expiredSession = expiredHeadSession(record)
    if (expiredSession !== undefined) {
      const sequenceNumbers = expired.get(expiredSession) ?? []
      if (record.dynamodb?.SequenceNumber) sequenceNumbers.push(record.dynamodb.SequenceNumber)
      expired.set(expiredSession, sequenceNumbers)
      continue
    }
    const image = record.dynamodb?.NewImage
    if (
      (record.eventName !== 'INSERT' && record.eventName !== 'MODIFY') ||
      !image ||
      !image[SK]?.S?.startsWith(EVENT_SK_PREFIX) ||
      image[TOMBSTONE_ATTRIBUTE] !== undefined
    )
      continue
    let event: StoredEvent
    try {
      // One record at a time: an unreadable payload costs only its own event.
      event = eventFromImage(image)
    } catch (error) {
      logger.error(
        `a2 router: skipped unreadable event record ${record.eventID ?? '?'} (${image[SK]?.S}): ${messageOf(error)}`,
      )
      continue
    }
    const session = sessions.get(event.sessionId) ?? {
      events: [],
      wakeUps: new Map<string, WakeUp & { at: { life: string; index: number } }>(),
      sequenceNumbers: [],
    }
    session.events.push(event)
    if (record.dynamodb?.SequenceNumber)
      session.sequenceNumbers.push(record.dynamodb.SequenceNumber)
    sessions.set(event.sessionId, session)
  }
  // Each session's events of the batch routed together, as their writer's
  // fast path routed its append: a command whose decision came in the same
  // write (the POST's) wakes no admission when both are in the batch.
  for (const session of sessions.values()) {
    for (const wakeUp of routeSession(session.events, options, logger)) {
      const key = `${wakeUp.lane}\u0000${wakeUp.key ?? ''}`
      const at = wakeUp.at ?? { life: '', index: 0 }
      const known = session.wakeUps.get(key)
      if (!known || known.at.index < at.index) session.wakeUps.set(key, { ...wakeUp, at })
    }
  }

  const failed: string[] = []
  const woken = [...sessions].filter(([, session]) => session.wakeUps.size > 0)
  // Every session's wake-ups in one send (batches of 10 per queue); only when
  // that fails, a send per session, so a session that cannot be woken is
  // retried alone (a resend is deduplicated).
  const all = woken.flatMap(([, session]) => [...session.wakeUps.values()])
  const sentTogether =
    all.length === 0 ||
    (await options.send(all).then(
      () => true,
      () => false,
    ))
  await Promise.all([
    ...(sentTogether ? [] : woken).map(async ([sessionId, session]) => {
      try {
        await options.send([...session.wakeUps.values()])
      } catch (error) {
        logger.warn(
          `a2 router: wake-ups for session ${sessionId} not sent, the batch will be retried: ${messageOf(error)}`,
        )
        failed.push(...session.sequenceNumbers)
      }
    }),
    ...[...expired].map(async ([sessionId, sequenceNumbers]) => {
      try {
        await options.eraseExpired(sessionId)
      } catch (error) {
        logger.warn(
          `a2 router: the expired session ${sessionId} was not erased, the batch will be retried: ${messageOf(error)}`,
        )
        failed.push(...sequenceNumbers)
      }
    }),
  ])
  // Lambda resumes from the lowest failed sequence number; report just that one.
  const first = failed.sort(compareSequenceNumbers)[0]
  return { batchItemFailures: first === undefined ? [] : [{ itemIdentifier: first }] }
}

/**
 * The session whose head DynamoDB's TTL deleted, when the record is that
 * delete (the filter's second pattern; a user's delete is no expiry).
 */
function expiredHeadSession(record: DynamoDBRecord): string | undefined {
  if (!matchesFilterPattern(record, EXPIRED_HEAD_FILTER_PATTERN)) return undefined
  const pk = record.dynamodb?.Keys?.[PK]?.S
  return pk?.startsWith(SESSION_PK_PREFIX) ? pk.slice(SESSION_PK_PREFIX.length) : undefined
}

/**
 * An event item's image as a `StoredEvent`, routed on its key attributes:
 * the payload (JSON, or gzipped) is decoded only if routing reads it, which
 * `wakeUpsFor` does for committed controls alone.
 */
/**
 * A session's events of the batch, routed together; when a payload routing
 * reads is unreadable (it is decoded only when read), one event at a time,
 * so it costs only its own event: logged and skipped, since a retry could
 * not read it either.
 */
function routeSession(
  events: readonly StoredEvent[],
  options: StreamRouterOptions,
  logger: Pick<Console, 'error'>,
): WakeUp[] {
  try {
    return options.wakeUpsFor(events)
  } catch {
    return events.flatMap((event) => {
      try {
        return options.wakeUpsFor([event])
      } catch (error) {
        logger.error(
          `a2 router: skipped unreadable event record of session ${event.sessionId} at #${event.index} (${event.type}): ${messageOf(error)}`,
        )
        return []
      }
    })
  }
}

function eventFromImage(image: LambdaImage): StoredEvent {
  const sessionId = image.sid?.S
  const index = Number(image.i?.N)
  const type = image.t?.S
  if (typeof sessionId !== 'string' || !Number.isSafeInteger(index) || typeof type !== 'string') {
    throw new TypeError('the item lacks a session ID, index or type')
  }
  let payload: { value: unknown } | undefined
  return {
    id: image.id?.S as string,
    type,
    sessionId,
    // An item written before lives has none: its deduplication then differs
    // from the fast path's, which costs a duplicate wake-up, never a lost one.
    life: image[LIFE_ATTRIBUTE]?.S ?? '',
    index,
    timestamp: Number(image.ts?.N),
    get payload() {
      payload ??= {
        value: decodePayload({
          json: image.p?.S,
          gzip: typeof image.pz?.B === 'string' ? Buffer.from(image.pz.B, 'base64') : undefined,
        }),
      }
      return payload.value
    },
  }
}

/** Sequence numbers are decimal strings of varying length. */
function compareSequenceNumbers(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0)
}
