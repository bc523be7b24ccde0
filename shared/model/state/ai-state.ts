import type { UIMessage } from 'ai'
import type { ControlRequest } from '../events/control.ts'
import type { ActiveResponse } from './active-response.ts'
import type { CompactionData } from './compaction-part.ts'
import type { TranscriptMessage } from './message-types.ts'

/** A pending input in the durable inbox: accepted, not yet admitted. */
export interface InboxItem<M extends UIMessage = UIMessage> {
  /** The message ID, which is also the input's ID. */
  id: string
  /** The latest accepted content (the original command's, or the last edit's). */
  message: M
  /** `false` for passive input: it joins the next generating turn's context. */
  generate: boolean
  /** The turn this input steers (set by `steer()` and `queue.sendNow()`). */
  afterStepOf: string | null
  /** The command whose message is the accepted content: the original or the last edit. */
  commandId: string
}

/**
 * The phase of the logical turn. `starting`: admitted, no model step has
 * started; `generating`: a model step runs; `waiting`: between steps, for
 * tools, approvals or inputs; `pausing`: Pause now was accepted and old work
 * settles; `paused`; `failed`: the model call failed, waiting for retry or
 * interruption.
 */
export type TurnPhase = 'starting' | 'generating' | 'waiting' | 'pausing' | 'paused' | 'failed'

export interface ActiveTurn {
  turnId: string
  /** The generating input that started the turn. */
  inputId: string
  /** Inputs admitted with it as context (earlier steering, passive input). */
  contextInputIds: string[]
  phase: TurnPhase
  responseMessageId: string
  /** Model steps requested so far in this turn (1 for the first). */
  step: number
  /** Steering or Send now asked this turn to hand off before another step. */
  handoff: boolean
  /**
   * The agent version whose code started the turn's first model step (as
   * its `ai.generation.started` records it); later steps may run on a newer
   * one. Undefined before the first step starts, and for steps of code from
   * before versions were recorded.
   */
  version?: string
  /** The failed call's message, while `phase` is `failed`. */
  error?: string
  /** Generation requests made in this turn; numbers the next request's ID. */
  requestCount: number
  /** The retry that re-requests the failed step. */
  retryId?: string
  /**
   * Where the latest `ai.generation.requested` of the turn is in the log, so
   * the generation lane hands resolvers the stored event itself.
   */
  request?: { id: string; index: number; timestamp: number }
  /**
   * The model step in flight: `requested` until an attempt starts serving the
   * request (again after a superseded attempt), then that attempt. `null`
   * before the first request, after a retry, and when a pause cancelled a
   * request that never started. `state.activeGeneration` and
   * `state.activeRequestId` are read off it.
   */
  generation: RequestedGeneration | ActiveGeneration | null
  /** The Pause now command that is pausing or paused this turn. */
  pausedBy?: string
  /**
   * When that Pause now was accepted (epoch ms). A cut-short tool whose
   * worker has not acknowledged its stop by one claim TTL later is settled
   * by A2, as an expired claim would be.
   */
  pausingSince?: number
}

/** A model step requested and not yet served by a running attempt. */
export interface RequestedGeneration {
  status: 'requested'
  requestId: string
}

/** One model step attempt of the active turn. */
export interface ActiveGeneration {
  generationId: string
  requestId: string
  responseMessageId: string
  step: number
  /**
   * Which claim attempt at the request this is (1 for the first): above 1, an
   * earlier attempt at the same model step crashed, timed out or failed to
   * open, and this one took it over.
   */
  attempt: number
  status: 'running' | 'completed' | 'failed' | 'interrupted'
  finishReason?: string
  /** The agent version whose code runs (ran) the attempt. */
  version?: string
}

export interface PendingApproval {
  approvalId: string
  toolCallId: string
  toolName: string
  messageId: string
  generationId: string
  turnId: string
  input?: unknown
}

export interface PendingInput {
  inputRequestId: string
  turnId: string | null
  messageId?: string
  generationId?: string
  toolCallId?: string
  request: unknown
  status: 'pending' | 'answered'
  value?: unknown
}

/**
 * A tool call's identity and execution status. Inputs, outputs and metadata
 * live in the message parts. `running` means accepted and not yet terminal
 * (including a preliminary output); `interrupted`: Pause now cut its work
 * short and it runs again on Resume; `cancelled`: its turn ended while the
 * call had no terminal result, and A2 waits for its work to settle.
 */
export type ToolStatus =
  | 'awaiting-approval'
  | 'running'
  | 'interrupted'
  | 'completed'
  | 'failed'
  | 'denied'
  | 'cancelled'

export interface ToolRecord {
  toolCallId: string
  toolName: string
  turnId: string
  generationId: string
  messageId: string
  status: ToolStatus
  providerExecuted?: boolean
  /**
   * A provider tool with deferred results: a call its step's response did
   * not answer waits for `inputs.toolResult()`.
   */
  deferredResult?: boolean
  /**
   * A provider-executed call answered after its step closed (a deferred
   * result): the model has not seen it, so another step follows.
   */
  answeredAfterStep?: boolean
  /**
   * The `ai.tool.called` event, so a recovered tool's handler context sees
   * the same event (and the same timer target times) as the first attempt.
   */
  called?: { id: string; index: number; timestamp: number }
  /**
   * The agent version whose model step made the call (its attempt's
   * `ai.generation.started`). The tools lane checks the input again when it
   * runs the call under another version: the tool's schema may have changed.
   */
  version?: string
}

export interface CompactionState extends CompactionData {
  compactionId: string
  messageId: string
  /** The last message the summary covers, once completed. */
  upToMessageId?: string
}

export type ModelMetadata =
  | { status: 'pending' }
  | { status: 'unavailable' }
  | {
      status: 'resolved'
      contextWindow?: number
      maxOutputTokens?: number
      [key: string]: unknown
    }

/** The application receipt of the most recent user command. */
export interface CommandReceipt {
  commandId: string
  action: string
  outcome: 'applied' | 'rejected'
  reason?: string
}

/**
 * The conversation as the AI reducer folds it. JSON-safe: snapshots store it.
 */
export interface AIState<M extends UIMessage = UIMessage> {
  /** The transcript: admitted inputs and responses, in order. */
  messages: TranscriptMessage<M>[]
  /** Accepted inputs waiting for admission, in (editable) arrival order. */
  inbox: { items: InboxItem<M>[]; paused: boolean }
  /** The logical turn, or `null` when idle. */
  active: ActiveTurn | null
  pendingApprovals: PendingApproval[]
  pendingInputs: PendingInput[]
  tools: ToolRecord[]
  /** The current or latest compaction. */
  compaction: CompactionState | null
  /**
   * The latest successful compaction: model requests get its summary plus
   * everything after `upToMessageId`. A later failure does not undo it.
   */
  compacted: { compactionId: string; summary: string; upToMessageId: string } | null
  /**
   * Per model, the previous call's input tokens over A2's estimate of its
   * prompt: the calibration of the next estimate.
   */
  calibration: Record<string, number>
  modelMetadata: Record<string, ModelMetadata>
  receipt: CommandReceipt | null
  // The turn facts: readings of `active` for readers (the hook's actions,
  // `inputs.interrupt()`'s owner, a UI's indicator), taken by `reduceAIState`
  // after every event (`withTurnFacts`), so they cannot disagree with it. A
  // reducer changes `active`, never these.
  /** A turn awaits acceptance or its first model step: not a running model (`active.phase` is `starting`). */
  starting: boolean
  /** The active turn's model step attempt, once one has started serving its request. */
  activeGeneration: ActiveGeneration | null
  /** The generation request the active turn waits on, before it starts. */
  activeRequestId: string | null
  activeResponseMessageId: string | null
  /** `ai.session.closed` was recorded. */
  closed: boolean
  /**
   * Lanes that kept failing and gave up (newest last): the lane, the work's
   * key, the model step (`requestId`, the generation lane's), the last error.
   * A given-up model step fails its turn and a given-up tool its call;
   * waking the session retries the other lanes' work.
   */
  deadLetters: {
    lane: string
    key?: string
    requestId?: string
    error: string
    attempts: number
    index: number
  }[]
  /**
   * Durable steps (`ctx.step()`) of tool calls and handlers still running, by
   * their work's claim key, then step name: `{ output }` as recorded. A
   * call's steps go when it can no longer run (its terminal result, or its
   * cancellation: Stop, a steer, a denial, a superseded step; a call cut
   * short by Pause now keeps them for its rerun); a handler's when the next
   * handler records one (the lane runs one at a time).
   */
  durableSteps: Record<string, Record<string, { output?: unknown }>>
  /** The responses Stop closed (their message IDs, oldest first), for a UI to mark. */
  stoppedResponseIds: string[]
  /**
   * Bookkeeping: commands persisted but not yet decided, by command ID. The
   * log stores a message once, in its command; admission reads it from here.
   */
  requests: Record<string, ControlRequest<M>>
  /** Bookkeeping: the active response's chunk-processing state. */
  response: ActiveResponse | null
}

/** The state of a session with no events. */
export function initialAIState<M extends UIMessage = UIMessage>(): AIState<M> {
  return {
    messages: [],
    inbox: { items: [], paused: false },
    active: null,
    pendingApprovals: [],
    pendingInputs: [],
    tools: [],
    compaction: null,
    compacted: null,
    calibration: {},
    modelMetadata: {},
    receipt: null,
    ...turnFacts(null),
    closed: false,
    deadLetters: [],
    durableSteps: {},
    stoppedResponseIds: [],
    requests: {},
    response: null,
  }
}

/**
 * `AIState`'s keys, read off `initialAIState()` (which the compiler holds to
 * the interface), so no list of them is kept by hand.
 */
export const AI_STATE_KEYS: ReadonlySet<string> = new Set(Object.keys(initialAIState()))

/** The attempt serving the active turn's model step, if one has started. */
export function generationOf(active: ActiveTurn | null): ActiveGeneration | null {
  const generation = active?.generation ?? null
  return generation?.status === 'requested' ? null : generation
}

/** The request the active turn's model step waits on, before an attempt serves it. */
export function requestOf(active: ActiveTurn | null): string | null {
  const generation = active?.generation ?? null
  return generation?.status === 'requested' ? generation.requestId : null
}

type TurnFacts = Pick<
  AIState,
  'starting' | 'activeGeneration' | 'activeRequestId' | 'activeResponseMessageId'
>

/** The turn facts of `active`: the one place they are derived. */
function turnFacts(active: ActiveTurn | null): TurnFacts {
  return {
    starting: active?.phase === 'starting',
    activeGeneration: generationOf(active),
    activeRequestId: requestOf(active),
    activeResponseMessageId: active?.responseMessageId ?? null,
  }
}

/** `state` with its turn facts read off `active`: the same object when they already agree. */
export function withTurnFacts<M extends UIMessage>(state: AIState<M>): AIState<M> {
  const facts = turnFacts(state.active)
  const keys = Object.keys(facts) as (keyof TurnFacts)[]
  return keys.every((key) => facts[key] === state[key]) ? state : { ...state, ...facts }
}
