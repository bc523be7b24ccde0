import type { StoredEvent } from '../../../shared/log/event.ts'
import { type CheckOutcome, duration, fail, pass } from './check-result.ts'

export interface AnswerObservation {
  /** When the user's message was POSTed (client clock). */
  postedAt: number
  /** The session's events that arrived after the POST, with their arrival times. */
  events: readonly { at: number; event: StoredEvent }[]
  /** How long the answer was waited for. */
  timeoutMs: number
  /** When the stream ended before the answer completed, if it did. */
  endedAt?: number
}

/**
 * Answered when the assistant's message completed (`ai.message.completed`);
 * otherwise the most telling reason the session's events give (a rejected
 * message, a failed model call, a dead-lettered wake-up) or what did not arrive.
 */
export function judgeAnswer(observation: AnswerObservation): CheckOutcome {
  const { postedAt, events } = observation
  const first = events[0]
  const completed = events.find(({ event }) => event.type === 'ai.message.completed')
  const figures: Record<string, number> = { frames: events.length }
  if (first) figures.firstFrameMs = first.at - postedAt
  if (completed) {
    figures.completedMs = completed.at - postedAt
    return pass(
      `answered: first frame after ${duration(figures.firstFrameMs as number)}, completed after ${duration(figures.completedMs)}`,
      figures,
    )
  }
  const why = problemOf(events.map(({ event }) => event))
  if (why) return fail(why, figures)
  if (observation.endedAt !== undefined) {
    return fail(
      `the stream ended ${duration(observation.endedAt - postedAt)} after the POST, before the answer completed`,
      figures,
    )
  }
  if (!first) {
    return fail(
      `no event arrived within ${duration(observation.timeoutMs)} of the POST: the message was not stored or the stream does not deliver`,
      figures,
    )
  }
  const last = events.at(-1)?.event.type
  return fail(
    `no ai.message.completed within ${duration(observation.timeoutMs)} (${events.length} events arrived, the last ${last}): are the router and lanes running?`,
    figures,
  )
}

function problemOf(events: readonly StoredEvent[]): string | undefined {
  for (const event of [...events].reverse()) {
    const payload = (event.payload ?? {}) as Record<string, unknown>
    if (event.type === 'ai.control.decided' && payload.outcome === 'rejected') {
      return `the message was rejected (${String(payload.reason)})`
    }
    if (event.type === 'ai.handler.dead-lettered') {
      return `a ${String(payload.lane)} wake-up went to its dead-letter queue: ${String(payload.error)}`
    }
    if (event.type === 'ai.generation.completed' && payload.outcome === 'failed') {
      return `the model call failed: ${String(payload.error ?? 'no reason given')}`
    }
  }
  return undefined
}
