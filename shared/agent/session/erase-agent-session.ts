import { type EraseReceipt, type EventStore, nothingErased } from '../../log/event-store.ts'
import type { SessionState } from '../../model/state/session-state.ts'
import type { Scheduler } from '../../runtime/scheduler.ts'
import type { LocalWork } from '../lanes/local-work.ts'
import { SessionActiveError } from './session-active-error.ts'
import type { StateCache } from './state-cache.ts'

export interface EraseOptions {
  /**
   * Erase even while a turn runs. Claimed work is fenced out (its claims go
   * with the session) and this process's is aborted; a worker elsewhere may
   * still land an unfenced write, which starts a new log. For a session that
   * is stuck; stop a live one first.
   */
  force?: boolean
  /**
   * Erase only this life of the session (`StateSnapshot.life`; the default
   * of a handle bound to one, `agent.session(id, { life })`): when it has
   * already ended, nothing is removed and no timer is cancelled, so an
   * erase request a stalled server holds past an erase and a start over
   * leaves the new life alone.
   */
  life?: string
}

/** What an agent's erase removed: the store's items by kind, and the timers it cancelled. */
export interface AgentEraseReceipt extends EraseReceipt {
  /** Pending timers of the session cancelled in the scheduler (`Scheduler.cancel`). */
  timers: number
}

/**
 * Erases a session for an agent: refuses while a turn is active unless
 * forced, cancels its pending timers (which would otherwise fire into the
 * erased session and start it over), removes it from the store (every item
 * kind, with a receipt), and drops this process's cached state, so that
 * nothing here brings it back.
 */
export async function eraseAgentSession(
  parts: {
    store: EventStore
    scheduler: Scheduler
    state: StateCache<SessionState>
    work: LocalWork
  },
  sessionId: string,
  { force = false, life }: EraseOptions = {},
): Promise<AgentEraseReceipt> {
  // A forced erase of no life in particular reads nothing first (the session may be stuck).
  if (life !== undefined || !force) {
    const { state, life: current } = await parts.state(sessionId)
    if (life !== undefined && current !== life) return { ...nothingErased(sessionId), timers: 0 }
    const { active } = state.ai
    if (!force && active !== null) {
      throw new SessionActiveError(sessionId, `turn ${active.turnId} is ${active.phase}`)
    }
  }
  parts.work.abortSession(sessionId, 'session erased')
  parts.state.forget(sessionId)
  // Timers first: a cancel that fails (a missing permission) leaves the log whole.
  const timers = await parts.scheduler.cancel(sessionId)
  const receipt = await parts.store.erase(sessionId, life === undefined ? {} : { life })
  // A lane of this process may have cached the state again meanwhile.
  parts.state.forget(sessionId)
  return { ...receipt, timers }
}
