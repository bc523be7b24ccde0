import type { StoredEvent } from '../log/event.ts'

/** The frames of an SSE response (see `sse.ts`). */
const encoder = new TextEncoder()

/**
 * One SSE frame per stored event: `id:` is the log index, so a reconnecting
 * EventSource sends it back as `Last-Event-ID` and resumes after it.
 */
export function eventFrame(event: StoredEvent): Uint8Array {
  return encoder.encode(`id: ${event.index}\ndata: ${JSON.stringify(event)}\n\n`)
}

/** A comment line: keeps proxies (API Gateway idles out after 5 minutes) from closing the stream. */
export const HEARTBEAT_FRAME = encoder.encode(': heartbeat\n\n')

/**
 * The last frame of a stream the server ends because the session was quiet:
 * a client tells this planned end from a drop, and resumes when there is
 * news (an `EventSource` simply reconnects after the `retry:` before it).
 */
export const QUIET_FRAME = encoder.encode(': quiet\n\n')

export function retryFrame(ms: number): Uint8Array {
  return encoder.encode(`retry: ${ms}\n\n`)
}

/**
 * A comment with the log's index when the stream opened: a client that has
 * applied that index is caught up with everything that existed then.
 */
export function headFrame(index: number): Uint8Array {
  return encoder.encode(`: head ${index}\n\n`)
}

/**
 * Comments naming the event at the index a client resumes after (`: after N
 * "id"`, the ID as JSON), then its life (`: life N "life"`): a client that
 * applied another event there, or one of another life, was reading a
 * different log (a store that was reset, a session erased and started over,
 * perhaps with the same IDs). Two comments, so a client that knows only the
 * first still checks the ID.
 */
export function afterFrame(event: StoredEvent): Uint8Array {
  return encoder.encode(
    `: after ${event.index} ${JSON.stringify(event.id)}\n\n: life ${event.index} ${JSON.stringify(event.life)}\n\n`,
  )
}
