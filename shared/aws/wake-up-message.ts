import { createHash } from 'node:crypto'
import { isLane, LANES, QUEUE_LANES, type QueueLane } from '../runtime/lanes.ts'
import type { WakeUp } from '../runtime/wake-up.ts'
import { PipelineError } from './errors.ts'

export { QUEUE_LANES, type QueueLane }

/** The queue a lane's wake-ups travel on (see shared/runtime/lanes.ts). */
export function queueOfLane(lane: string): QueueLane {
  return queueLaneOf(isLane(lane) ? LANES[lane].queue : lane)
}

/** A wake-up as one SQS FIFO message. */
export interface WakeUpMessage {
  lane: QueueLane
  body: string
  groupId: string
  deduplicationId: string
}

export interface WakeUpMessageOptions {
  /**
   * The log index the news behind this wake-up reaches (it is committed
   * before the message is sent). Two senders of the same wake-up at the same
   * index (the fast path and the stream router) get the same deduplication ID,
   * so SQS delivers one. Unknown: a random ID, never collapsed.
   */
  index?: number
  /** `'tools'`: every tool run of a session shares one message group (runs one at a time). */
  toolLane?: 'tools'
}

// SQS allows 128 characters of letters, digits and ASCII punctuation in group
// and deduplication IDs.
const SQS_ID = /^[\x21-\x7e]{1,128}$/

function sqsId(text: string): string {
  return SQS_ID.test(text) ? text : `#${createHash('sha256').update(text).digest('hex')}`
}

/**
 * How a wake-up travels: a message group per session and lane (per tool call
 * for keyed tool runs, unless `toolLane` serializes them), so a lane's work
 * for one session runs one at a time while sessions run in parallel.
 *
 * @example
 * wakeUpMessage({ sessionId: 's1', lane: 'admission' }, { index: 7 })
 * // { lane: 'admission', groupId: 's1', deduplicationId: '<sha256>', body: '{"sessionId":"s1","lane":"admission"}' }
 */
export function wakeUpMessage(wakeUp: WakeUp, options: WakeUpMessageOptions = {}): WakeUpMessage {
  const lane = queueOfLane(wakeUp.lane)
  const keyed = lane === 'tools' && wakeUp.key !== undefined && options.toolLane !== 'tools'
  const groupId = sqsId(keyed ? `${wakeUp.sessionId}/${wakeUp.key}` : wakeUp.sessionId)
  const deduplicationId =
    options.index === undefined
      ? crypto.randomUUID()
      : createHash('sha256')
          .update(
            JSON.stringify([wakeUp.sessionId, wakeUp.lane, wakeUp.key ?? null, options.index]),
          )
          .digest('hex')
  const body: WakeUp = { sessionId: wakeUp.sessionId, lane: wakeUp.lane }
  if (wakeUp.key !== undefined) body.key = wakeUp.key
  return { lane, groupId, deduplicationId, body: JSON.stringify(body) }
}

/** Reads a wake-up message body; anything else is a `MALFORMED_WAKE_UP` error. */
export function parseWakeUpMessage(body: string): WakeUp {
  let value: unknown
  try {
    value = JSON.parse(body)
  } catch (error) {
    throw new PipelineError('MALFORMED_WAKE_UP', 'A wake-up message must be JSON', {
      cause: error,
    })
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new PipelineError('MALFORMED_WAKE_UP', 'A wake-up message must be a JSON object')
  }
  const { sessionId, lane, key } = value as Record<string, unknown>
  if (typeof sessionId !== 'string' || sessionId === '') {
    throw new PipelineError('MALFORMED_WAKE_UP', 'A wake-up message needs a string "sessionId"')
  }
  if (key !== undefined && typeof key !== 'string') {
    throw new PipelineError('MALFORMED_WAKE_UP', 'A wake-up\'s "key" must be a string')
  }
  queueOfLane(lane as string) // refuses lanes nobody serves
  const wakeUp: WakeUp = { sessionId, lane: lane as string }
  if (key !== undefined) wakeUp.key = key
  return wakeUp
}

function queueLaneOf(lane: unknown): QueueLane {
  if (!QUEUE_LANES.includes(lane as QueueLane)) {
    throw new PipelineError(
      'MALFORMED_WAKE_UP',
      `Unknown lane ${JSON.stringify(lane)}: expected one of ${QUEUE_LANES.join(', ')}`,
    )
  }
  return lane as QueueLane
}
