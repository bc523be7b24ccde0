import type { UIMessage } from 'ai'
import type { StateSnapshot } from '../log/reducer.ts'
import type { ControlRequest } from '../model/events/control.ts'
import type { ActiveTurn, AIState } from '../model/state/ai-state.ts'
import type { TranscriptMessage } from '../model/state/message-types.ts'
import type { AgentClientError } from './client-error.ts'
import type { ReloadReason, ServerVersions } from './server-skew.ts'
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

/**
 * Where a turn stands on its way to the model, before its first token, so a
 * UI can say what it waits for instead of showing a bare spinner:
 *
 * - `sending`: a command of this client that asks for a response (a message
 *   that generates, a steer, retry, Send now, resume, approval, input or tool
 *   result) is not back on the stream yet: the push is on its way, or the
 *   stream has not delivered it;
 * - `queued`: such a command is in the log and the controller has not decided
 *   it yet (`state.requests`), or a message that generates waits in the inbox
 *   (behind the active turn, or a paused inbox);
 * - `starting`: the active turn awaits its model step: admitted with no step
 *   requested yet, or a step requested (the first, or the next after tools)
 *   that no attempt has started;
 * - `recovering`: the active turn's model step is being taken over: its
 *   attempt ended without a word (a worker crashed, or its claim timed out)
 *   and the next has not started, or the attempt that took it over
 *   (`activeGeneration.attempt` above 1) has written nothing yet.
 *
 * `starting` and `recovering` are the active turn's, and come first;
 * `queued` and `sending` may be a later turn's, behind one that runs (what
 * that one does is the `indicator`'s). `null` when nothing waits. A crashed
 * worker's step shows `recovering` only once another attempt takes it over:
 * until its claim lapses the log cannot tell it from a slow model.
 */
export type AgentStage = 'sending' | 'queued' | 'starting' | 'recovering'

/** What `stageOf()` reads besides the rendered state: a client's own commands. */
export interface StageSources<M extends UIMessage = UIMessage> {
  /** The state the stream confirmed. */
  confirmed: AIState<M>
  /** The commands this client pushed that the confirmed state does not hold yet. */
  unconfirmed: readonly ControlRequest<M>[]
}

/** One consistent picture of a session, as `getSnapshot()` returns it. */
export interface AgentSnapshot<M extends UIMessage = UIMessage, State = AIState<M>> {
  /** Confirmed state with pending commands applied: render this. */
  state: State
  /** The state the stream confirmed, and its log index (the frontier Stop sends). */
  confirmed: StateSnapshot<State>
  messages: TranscriptMessage<M>[]
  status: AgentStatus
  indicator: AgentIndicator | null
  /** Where the turn a user waits for stands before its first token (`stageOf`). */
  stage: AgentStage | null
  connection: ConnectionStatus
  /**
   * The stream is open and has delivered everything the log held when it
   * connected (the server's head marker): the state is current.
   */
  caughtUp: boolean
  /** Why the stream is reconnecting or failed; `null` while it is healthy. */
  error: AgentClientError | null
  /**
   * Why the page must reload, once the server refused the wire protocol it
   * was written for (a deploy moved on): the stream has stopped for good
   * (`connection: 'failed'`) and pushes are refused. `null` while the server
   * serves this page, a newer one included.
   */
  reload: ReloadReason | null
  /** What the server's answers say of it: its newest protocol, its deployment version. */
  server: ServerVersions
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

/** The commands that ask for a response: a turn starts or goes on once they are decided. */
const ASKS_FOR_RESPONSE: ReadonlySet<string> = new Set([
  'steer',
  'retry',
  'queue.sendNow',
  'resume',
  'approval',
  'input',
  'toolResult',
])

const asksForResponse = (request: ControlRequest): boolean =>
  request.action === 'message' ? request.generate : ASKS_FOR_RESPONSE.has(request.action)

/**
 * The wait stage (`AgentStage`) of a state. `state` is what is rendered;
 * `sources` tells this client's own commands apart: without it `state` is
 * read as confirmed, so an optimistic view's previewed send reads as
 * `starting`. The snapshot's `stage` passes them.
 *
 * @example
 * stageOf(state) === 'recovering' // "Recovering after an interruption…"
 */
export function stageOf<M extends UIMessage>(
  state: AIState<M>,
  sources?: StageSources<M>,
): AgentStage | null {
  const confirmed = sources?.confirmed ?? state
  if (state.closed || confirmed.closed) return null
  const turn = turnStage(confirmed)
  // A pending Stop or Pause now has already ended that wait on screen.
  const shown = state.active?.turnId === confirmed.active?.turnId && !held(state.active)
  if (turn !== null && shown) return turn
  const queued =
    Object.values(confirmed.requests).some(asksForResponse) ||
    confirmed.inbox.items.some((item) => item.generate)
  if (queued) return 'queued'
  return sources?.unconfirmed.some(asksForResponse) ? 'sending' : null
}

const held = (active: ActiveTurn | null): boolean =>
  active?.phase === 'pausing' || active?.phase === 'paused'

/** The active turn's stage before its model step's first output. */
function turnStage<M extends UIMessage>(state: AIState<M>): 'starting' | 'recovering' | null {
  const active = state.active
  if (active === null || held(active) || active.phase === 'failed') return null
  const generation = active.generation
  if (generation?.status === 'running')
    return generation.attempt > 1 && !stepShows(state) ? 'recovering' : null
  // A request while `generating`: the attempt serving it was superseded.
  if (generation?.status === 'requested')
    return active.phase === 'generating' ? 'recovering' : 'starting'
  return active.phase === 'starting' ? 'starting' : null
}

/** Whether the running model step has written anything to the response yet. */
function stepShows<M extends UIMessage>(state: AIState<M>): boolean {
  const response = state.response
  const message = response ? state.messages[response.position] : undefined
  if (response === null || message === undefined) return false
  return message.parts.slice(response.stepStart).some((part) => part.type !== 'step-start')
}
