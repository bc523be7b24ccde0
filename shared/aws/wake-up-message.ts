import { z } from 'zod'
import { idHash } from '../log/id-hash.ts'
import { isLane, LANES, QUEUE_LANES, type QueueLane } from '../runtime/lane-table.ts'
import type { WakeUp } from '../runtime/wake-up.ts'
import { PipelineError } from './errors.ts'
import { parseQueueMessage } from './queue-message.ts'
import { sqsGroupId } from './sqs-id.ts'

export type { QueueLane }

/** The queue a lane's wake-ups travel on; a lane nobody serves is a `MALFORMED_WAKE_UP` error. */
export function queueOfLane(lane: string): QueueLane {
  const queue = queueOfLaneOrUndefined(lane)
  if (queue === undefined) throw new PipelineError('MALFORMED_WAKE_UP', unknownLane(lane))
  return queue
}

/** A wake-up as one SQS FIFO message. */
export interface WakeUpMessage {
  lane: QueueLane
  body: string
  groupId: string
  deduplicationId: string
}

/**
 * How a wake-up travels: a message group per session and lane, and per key
 * for keyed tool runs, so a lane's work for one session runs one at a time
 * while sessions (and a session's tool calls) run in parallel. An agent with
 * `toolLane: 'tools'` wakes every tool run under one key, so its runs share
 * one group: the dispatcher needs no setting for it.
 *
 * The deduplication ID is the news's (`wakeUp.at`: the life and index of
 * the event that made it, committed before the message is sent): the fast
 * path and the stream router send the same one for the same news, so SQS
 * delivers one, and a life started over after an erase, whose indices
 * repeat the old life's, never meets the old life's IDs in SQS's
 * five-minute window. Without `at`, a random ID, never collapsed.
 *
 * @example
 * wakeUpMessage({ sessionId: 's1', lane: 'admission', at: { life: 'k2Xq9wT4bZ1p', index: 7 } })
 * // { lane: 'admission', groupId: 's1', deduplicationId: '<sha256>', body: '{"sessionId":"s1","lane":"admission"}' }
 */
export function wakeUpMessage(wakeUp: WakeUp): WakeUpMessage {
  const lane = queueOfLane(wakeUp.lane)
  const keyed = lane === 'tools' && wakeUp.key !== undefined
  const groupId = sqsGroupId(keyed ? `${wakeUp.sessionId}/${wakeUp.key}` : wakeUp.sessionId)
  const { at } = wakeUp
  const deduplicationId =
    at === undefined
      ? crypto.randomUUID()
      : idHash(
          JSON.stringify([wakeUp.sessionId, wakeUp.lane, wakeUp.key ?? null, at.life, at.index]),
          'hex',
        )
  const body: WakeUp = { sessionId: wakeUp.sessionId, lane: wakeUp.lane }
  if (wakeUp.key !== undefined) body.key = wakeUp.key
  return { lane, groupId, deduplicationId, body: JSON.stringify(body) }
}

const unknownLane = (lane: unknown): string =>
  `Unknown lane ${JSON.stringify(lane)}: expected one of ${QUEUE_LANES.join(', ')}`

const needsSessionId = 'A wake-up message needs a string "sessionId"'

const wakeUpMessageSchema = z.object(
  {
    sessionId: z.string({ error: needsSessionId }).min(1, { error: needsSessionId }),
    // Lanes nobody serves are refused here, not in a lane.
    lane: z
      .string({ error: (issue) => unknownLane(issue.input) })
      .refine((lane) => queueOfLaneOrUndefined(lane) !== undefined, {
        error: (issue) => unknownLane(issue.input),
      }),
    key: z.string({ error: 'A wake-up\'s "key" must be a string' }).optional(),
  },
  { error: 'A wake-up message must be a JSON object' },
)

/** Reads a wake-up message body; anything else is a `MALFORMED_WAKE_UP` error. */
export function parseWakeUpMessage(body: string): WakeUp {
  return parseQueueMessage(
    body,
    wakeUpMessageSchema,
    (why, cause) => {
      throw new PipelineError('MALFORMED_WAKE_UP', why, cause === undefined ? undefined : { cause })
    },
    'A wake-up message must be JSON',
  )
}

/** The queue a lane's wake-ups travel on, from the lane table (shared/runtime/lane-table.ts). */
function queueOfLaneOrUndefined(lane: string): QueueLane | undefined {
  return isLane(lane) ? LANES[lane].queue : undefined
}
