import type { UIMessage } from 'ai'
import type { StateSnapshot } from '../../log/reducer.ts'
import type { AIState } from '../state/ai-state.ts'
import type { TranscriptMessage } from '../state/message-types.ts'
import type { AgentClientError } from './client-error.ts'
import type { ConnectionStatus } from './sse-subscription.ts'

/**
 * Where the conversation stands, for the UI: `idle` (nothing running),
 * `starting` (a turn awaits acceptance or its first model step), `streaming`
 * (a model step runs), `waiting` (between steps: tools, approvals, inputs),
 * `paused` (the inbox is paused, or Pause now holds the turn), `failed` (the
 * model call failed; `retry()` or `stop()`), `closed` (the session ended).
 */
export type AgentStatus =
  | 'idle'
  | 'starting'
  | 'streaming'
  | 'waiting'
  | 'paused'
  | 'failed'
  | 'closed'

/** What a busy conversation shows while nothing visible streams. */
export type AgentIndicator = 'starting' | 'thinking' | 'compacting'

/** One consistent picture of a session, as `getSnapshot()` returns it. */
export interface AgentSnapshot<M extends UIMessage = UIMessage, State = AIState<M>> {
  /** Confirmed state with pending commands applied: render this. */
  state: State
  /** The state the stream confirmed, and its log index (the frontier Stop sends). */
  confirmed: StateSnapshot<State>
  messages: TranscriptMessage<M>[]
  status: AgentStatus
  indicator: AgentIndicator | null
  connection: ConnectionStatus
  /**
   * The stream is open and has delivered everything the log held when it
   * connected (the server's head marker): the state is current.
   */
  caughtUp: boolean
  /** Why the stream is reconnecting or failed; `null` while it is healthy. */
  error: AgentClientError | null
}

/**
 * The status a UI shows for a state.
 *
 * @example
 * statusOf(snapshot.state) === 'failed' // show Retry
 */
export function statusOf(state: AIState): AgentStatus {
  if (state.closed) return 'closed'
  const active = state.active
  if (active === null) return state.inbox.paused ? 'paused' : 'idle'
  switch (active.phase) {
    case 'starting':
      return 'starting'
    case 'generating':
      return 'streaming'
    case 'waiting':
      return 'waiting'
    case 'pausing':
    case 'paused':
      return 'paused'
    case 'failed':
      return 'failed'
  }
}

/**
 * The busy indicator: `compacting` while a summary runs, `starting` before
 * the first model step, `thinking` while a model step runs and writes no
 * visible text (before its first token, while it reasons or calls tools).
 *
 * @example
 * indicatorOf(state) === 'thinking' // show a typing indicator
 */
export function indicatorOf(state: AIState): AgentIndicator | null {
  if (state.compaction?.status === 'running') return 'compacting'
  if (state.starting) return 'starting'
  if (state.active?.phase !== 'generating') return null
  const response = state.messages.findLast(
    (message) => message.id === state.activeResponseMessageId,
  )
  const last = response?.parts[response.parts.length - 1] as
    | { type: string; state?: string }
    | undefined
  return last?.type === 'text' && last.state === 'streaming' ? null : 'thinking'
}
