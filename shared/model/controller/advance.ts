import type { UIMessage } from 'ai'
import type { AIEventInput } from '../events/ai-events.ts'
import { derivedId } from '../ids/ids.ts'
import type { AIState, ToolRecord } from '../state/ai-state.ts'
import { isTerminalTool } from '../state/response-helpers.ts'
import { admissionEvents, nextAdmission } from './admission.ts'
import { foldDraft } from './draft-fold.ts'

export interface AdvanceOptions {
  /** Model steps per response before it completes anyway. Default 20. */
  maxSteps?: number
}

const DEFAULT_MAX_STEPS = 20

const HANDOFF_REASON = 'Closed: steering took over the turn before this was answered.'

/**
 * Whether the join waits for this call. A provider-executed call is answered
 * through a response (its own, or a later one after an approval), so only
 * one with deferred results waits, for `inputs.toolResult()`.
 */
export function awaitsResult(tool: ToolRecord): boolean {
  if (isTerminalTool(tool)) return false
  return !(tool.providerExecuted && tool.status === 'running' && !tool.deferredResult)
}

/**
 * The next move the durable facts make due, or `[]`. Pure and deterministic:
 * every ID derives from the state, so running it twice over the same state
 * writes the same events and the log replays them.
 */
function nextMove<M extends UIMessage>(
  state: AIState<M>,
  options: AdvanceOptions,
): AIEventInput<M>[] {
  const active = state.active
  if (active === null) {
    const admission = nextAdmission(state)
    if (admission === null) return []
    return admissionEvents(admission.inputs, admission.passive)
  }

  const generation = state.activeGeneration
  const generating = generation?.status === 'running' || state.activeRequestId !== null
  const turnTools = state.tools.filter((tool) => tool.turnId === active.turnId)

  if (active.phase === 'pausing') {
    // A2's own work settles; a provider's call is not A2's to cancel.
    const busy =
      generation?.status === 'running' ||
      turnTools.some((tool) => tool.status === 'running' && tool.providerExecuted !== true)
    if (busy) return []
    return [
      {
        // Its pausing command, else the turn and when it began pausing: a
        // turn may pause more than once, and without a command ID the
        // reason alone would repeat across sessions.
        id: derivedId(
          'paused',
          active.turnId,
          active.pausedBy ?? 'pause',
          active.pausingSince ?? 0,
        ),
        type: 'ai.control.committed',
        payload: { changes: [{ op: 'turn.paused', turnId: active.turnId }] },
      },
    ]
  }
  if (active.phase === 'paused' || active.phase === 'failed' || generating) return []

  if (active.handoff) {
    // Finish the current response's authorized tool work (deferred provider
    // results included), then close what nobody answered, so the unapproved
    // tool never runs.
    if (turnTools.some((tool) => tool.status === 'running' && awaitsResult(tool))) return []
    const approvals = state.pendingApprovals.filter((approval) => approval.turnId === active.turnId)
    const inputs = state.pendingInputs.filter(
      (input) => input.turnId === active.turnId && input.status === 'pending',
    )
    return [
      ...approvals.map(
        (approval): AIEventInput<M> => ({
          id: derivedId('closed', approval.approvalId),
          type: 'ai.tool.result',
          payload: {
            toolCallId: approval.toolCallId,
            generationId: approval.generationId,
            messageId: approval.messageId,
            outcome: 'denied',
            reason: HANDOFF_REASON,
          },
        }),
      ),
      ...(inputs.length === 0
        ? []
        : [
            {
              id: derivedId('closed-inputs', active.inputId),
              type: 'ai.control.committed' as const,
              payload: {
                changes: inputs.map((input) => ({
                  op: 'input.close' as const,
                  inputRequestId: input.inputRequestId,
                })),
              },
            },
          ]),
      {
        id: derivedId('completed', active.inputId),
        type: 'ai.message.completed',
        payload: { turnId: active.turnId, messageId: active.responseMessageId, reason: 'handoff' },
      },
    ]
  }

  const request = (step: number): AIEventInput<M>[] => [
    {
      id: derivedId('request', active.inputId, active.requestCount + 1),
      type: 'ai.generation.requested',
      payload: {
        requestId: derivedId('request', active.inputId, active.requestCount + 1),
        turnId: active.turnId,
        responseMessageId: active.responseMessageId,
        step,
        ...(active.retryId === undefined ? {} : { retryId: active.retryId }),
      },
    },
  ]

  // No successful attempt for this step yet (new turn, retry, resumed
  // interruption): run it (again).
  if (generation === null || generation.status !== 'completed')
    return request(Math.max(active.step, 1))

  // The join: the step closed; wait until every sibling tool is terminal and
  // nothing waits for an answer.
  const stepTools = turnTools.filter((tool) => tool.generationId === generation.generationId)
  if (stepTools.some(awaitsResult)) return []
  if (state.pendingApprovals.some((approval) => approval.turnId === active.turnId)) return []
  if (
    state.pendingInputs.some(
      (input) => input.turnId === active.turnId && input.status === 'pending',
    )
  )
    return []

  // The model has seen what its own response answered; results that arrived
  // outside it (local tools, deferred provider results) need another step.
  const calledTools = stepTools.some(
    (tool) => tool.providerExecuted !== true || tool.answeredAfterStep === true,
  )
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS
  if (calledTools && generation.step < maxSteps) return request(generation.step + 1)
  return [
    {
      id: derivedId('completed', active.inputId),
      type: 'ai.message.completed',
      payload: {
        turnId: active.turnId,
        messageId: active.responseMessageId,
        reason: calledTools ? 'max-steps' : 'finished',
      },
    },
  ]
}

/**
 * Everything the confirmed state makes due now: the next generation request
 * once a step and its sibling tools settle, the end of a response, a
 * steering hand-off, the pause of a settled Pause now, and the admission of
 * queued inputs. Call it after folding any event; append what it returns.
 *
 * @example
 * const events = advance(state, { maxSteps: 10 })
 * if (events.length > 0) await session.append(...events)
 */
export function advance<M extends UIMessage>(
  state: AIState<M>,
  options: AdvanceOptions = {},
): AIEventInput<M>[] {
  const events: AIEventInput<M>[] = []
  let current = state
  // Each move changes the state it was computed from; a fixed bound guards
  // against a bug turning that into a loop.
  for (let moves = 0; moves < 1000; moves++) {
    const move = nextMove(current, options)
    if (move.length === 0) return events
    events.push(...move)
    current = foldDraft(current, move)
  }
  throw new Error('advance() did not settle after 1000 moves')
}
