import type { AIState } from './ai-state.ts'

/**
 * Whether the server is at work on a session, so events will follow without
 * anyone acting: a turn starting, generating, pausing or running tools, a
 * compaction, a command not yet decided, inputs waiting for admission. A
 * turn that waits only on people (an approval, an input), or is paused or
 * failed, expects nothing. A client whose stream ended for quiet reconnects
 * at once while this holds, and otherwise only checks for news now and then;
 * the server's stream ends soon after a state where it does not hold (the
 * same function on the same events: an agent's `stream.settledQuietMs`).
 *
 * @example
 * expectsNews(snapshot.confirmed.state) // true while the answer streams
 */
export function expectsNews(state: AIState): boolean {
  if (state.compaction?.status === 'running') return true
  if (Object.keys(state.requests).length > 0) return true
  const active = state.active
  if (active === null) return !state.inbox.paused && state.inbox.items.length > 0
  switch (active.phase) {
    case 'starting':
    case 'generating':
    case 'pausing':
      return true
    case 'waiting': {
      const running = state.tools.some(
        (tool) => tool.turnId === active.turnId && tool.status === 'running',
      )
      if (running) return true
      const people =
        state.pendingApprovals.length > 0 ||
        state.pendingInputs.some((input) => input.status === 'pending')
      return !people
    }
    case 'paused':
    case 'failed':
      return false
  }
}
