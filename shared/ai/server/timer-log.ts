import type { EventStore } from '../../log/event-store.ts'
import type { TimerLog } from '../../runtime/scheduler.ts'

/** The session's log as a timer set now records it (`Timer.setIn`): undefined for an empty log. */
export async function timerLogOf(
  store: Pick<EventStore, 'read'>,
  sessionId: string,
): Promise<TimerLog | undefined> {
  const [first] = await store.read(sessionId, { limit: 1 })
  return first ? { firstId: first.id, firstAt: first.timestamp } : undefined
}

/** Whether the session's log is still the one a timer was set in. */
export function isTimerLog(setIn: TimerLog, first: { id: string; timestamp: number } | undefined) {
  return first?.id === setIn.firstId && first.timestamp === setIn.firstAt
}
