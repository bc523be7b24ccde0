import type { EventStore } from '../../log/event-store.ts'
import type { TimerLog } from '../../runtime/scheduler.ts'

/**
 * The session's log as a timer set now records it (`Timer.setIn`): its first
 * event and its life (`life`, the one the work setting it read, when it
 * knows it); undefined for an empty log.
 */
export async function timerLogOf(
  store: Pick<EventStore, 'read'>,
  sessionId: string,
  life?: string,
): Promise<TimerLog | undefined> {
  const [first] = await store.read(sessionId, { limit: 1 })
  if (!first) return undefined
  return { firstId: first.id, firstAt: first.timestamp, life: life ?? first.life }
}

/**
 * Whether the session's log is still the one a timer was set in: the same
 * life, or for a timer set before lives (no `life`), the same first event.
 */
export function isTimerLog(
  setIn: TimerLog,
  first: { id: string; timestamp: number; life: string } | undefined,
) {
  if (setIn.life !== undefined) return first?.life === setIn.life
  return first?.id === setIn.firstId && first.timestamp === setIn.firstAt
}
