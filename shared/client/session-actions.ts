import type { UIMessage } from 'ai'
import type { EventInput, StoredEvent } from '../log/event.ts'
import { inputs } from '../model/inputs/inputs.ts'
import type { AIState, PendingApproval, PendingInput } from '../model/state/ai-state.ts'

/**
 * What every action returns: it resolves once the events are stored (to the
 * persisted events, whose IDs are the receipts' `commandId`s), and
 * `.confirmed` resolves when the stream delivers them back. Both reject with
 * an `AgentClientError` when the push fails.
 */
export type PushResult = Promise<StoredEvent[]> & { readonly confirmed: Promise<StoredEvent[]> }

/** The approval fields a decision copies, so a delayed click cannot authorize a later step. */
export type ApprovalRef = Pick<
  PendingApproval,
  'approvalId' | 'toolCallId' | 'messageId' | 'generationId'
>

export interface AgentActions<M extends UIMessage = UIMessage> {
  /** A string is sent as one text part with a fresh message ID. `generate: false` adds it passively. */
  sendMessage(message: string | M, options?: { generate?: boolean }): PushResult
  approve(pending: ApprovalRef): PushResult
  deny(pending: ApprovalRef, options?: { reason?: string }): PushResult
  respond(input: Pick<PendingInput, 'inputRequestId'>, value: unknown): PushResult
  /** Stops the turn the user sees, rewinding it to the frontier they saw. `[]` with no active turn. */
  stop(options?: { frontier?: number }): PushResult
  /** Reruns the failed model call with a fresh `retryId`. `[]` when no turn failed. */
  retry(): PushResult
  /** Steers the observed turn, or sends like `sendMessage()` when idle. */
  steer(message: string | M): PushResult
  queue: {
    edit(message: M): PushResult
    move(options: { inputId: string; beforeId: string | null }): PushResult
    remove(inputId: string): PushResult
    sendNow(inputId: string): PushResult
  }
  pause(options: { when: 'after-turn' | 'now' }): PushResult
  resume(): PushResult
  /** Raw pushes: any `inputs` builder's commands, or your contract's events. */
  push(...events: EventInput[]): PushResult
}

/** What the user saw when they acted: the state and the log index it was confirmed at. */
export interface Observed<M extends UIMessage> {
  state: AIState<M>
  frontier: number
}

/**
 * The actions of a session, built with the `inputs` builders. IDs are chosen
 * here (each command gets one), so a retried push replays and the
 * optimistic overlay can follow each command to its decision; turn IDs and
 * frontiers come from `observed()`, the state the user was shown.
 *
 * @example
 * const actions = sessionActions(session.push, () => ({ state: view.state, frontier: view.confirmed.index }), () => crypto.randomUUID())
 * await actions.sendMessage('Hi')
 */
export function sessionActions<M extends UIMessage>(
  push: (...events: EventInput[]) => PushResult,
  observed: () => Observed<M>,
  generateId: () => string,
): AgentActions<M> {
  const asMessage = (message: string | M): M =>
    typeof message === 'string'
      ? ({ id: generateId(), role: 'user', parts: [{ type: 'text', text: message }] } as M)
      : message
  const observedTurn = (): string | null => observed().state.active?.turnId ?? null

  return {
    sendMessage: (message, options = {}) =>
      push(
        ...inputs.message(
          asMessage(message),
          options.generate === false ? { generate: false } : {},
        ),
      ),
    approve: (pending) => push(...inputs.approval(pending, { approved: true, id: generateId() })),
    deny: (pending, options = {}) =>
      push(
        ...inputs.approval(pending, {
          approved: false,
          id: generateId(),
          ...(options.reason === undefined ? {} : { reason: options.reason }),
        }),
      ),
    respond: (input, value) => push(...inputs.input(input, value, { id: generateId() })),
    stop(options = {}) {
      const seen = observed()
      const turnId = seen.state.active?.turnId
      if (turnId === undefined) return push()
      return push(
        ...inputs.stop({ turnId, frontier: options.frontier ?? seen.frontier, id: generateId() }),
      )
    },
    retry() {
      const active = observed().state.active
      if (active?.phase !== 'failed') return push()
      return push(...inputs.retry({ turnId: active.turnId, retryId: generateId() }))
    },
    steer: (message) => push(...inputs.steer(asMessage(message), { afterStepOf: observedTurn() })),
    queue: {
      edit: (message) => push(...inputs.queue.edit(message, { id: generateId() })),
      move: ({ inputId, beforeId }) =>
        push(...inputs.queue.move({ inputId, beforeId, id: generateId() })),
      remove: (inputId) => push(...inputs.queue.remove(inputId, { id: generateId() })),
      sendNow: (inputId) =>
        push(...inputs.queue.sendNow(inputId, { afterStepOf: observedTurn(), id: generateId() })),
    },
    pause: ({ when }) => push(...inputs.pause({ when, id: generateId() })),
    resume: () => push(...inputs.resume({ id: generateId() })),
    push,
  }
}
