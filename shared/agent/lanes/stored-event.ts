import type { StoredEvent } from '../../log/event.ts'
import type { LanePorts } from './lane-ports.ts'

/**
 * The stored event at a position the state recorded (`{ id, index }`), as
 * the log holds it: a worker hands tools, handlers and resolvers the event
 * itself, not one rebuilt from the folded state. One read of one item.
 */
export async function storedEventAt(
  read: LanePorts['read'],
  sessionId: string,
  at: { id: string; index: number },
): Promise<StoredEvent> {
  const [event] = await read(sessionId, { after: at.index - 1, limit: 1 })
  if (event?.id !== at.id) {
    throw new Error(
      `a2: session ${sessionId} holds ${event ? `"${event.id}"` : 'nothing'} at index ${at.index}, not "${at.id}"`,
    )
  }
  return event
}
