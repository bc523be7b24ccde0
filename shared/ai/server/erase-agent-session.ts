import { SessionActiveError } from '../../log/errors.ts'
import type { EraseReceipt, EventStore } from '../../log/event-store.ts'
import type { SessionState } from '../state/session-state.ts'
import type { LocalWork } from './lanes/local-work.ts'
import type { StateCache } from './state-cache.ts'

export interface EraseOptions {
  /**
   * Erase even while a turn runs. Claimed work is fenced out (its claims go
   * with the session) and this process's is aborted; a worker elsewhere may
   * still land an unfenced write, which starts a new log. For a session that
   * is stuck; stop a live one first.
   */
  force?: boolean
}

/**
 * Erases a session for an agent: refuses while a turn is active unless
 * forced, removes it from the store (every item kind, with a receipt), and
 * drops this process's cached state, so that nothing here brings it back.
 */
export async function eraseAgentSession(
  parts: { store: EventStore; state: StateCache<SessionState>; work: LocalWork },
  sessionId: string,
  { force = false }: EraseOptions = {},
): Promise<EraseReceipt> {
  if (!force) {
    const { active } = (await parts.state(sessionId)).state.ai
    if (active !== null) {
      throw new SessionActiveError(sessionId, `turn ${active.turnId} is ${active.phase}`)
    }
  }
  parts.work.abortSession(sessionId, 'session erased')
  parts.state.forget(sessionId)
  const receipt = await parts.store.erase(sessionId)
  // A lane of this process may have cached the state again meanwhile.
  parts.state.forget(sessionId)
  return receipt
}
