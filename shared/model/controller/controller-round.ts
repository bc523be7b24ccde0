import type { UIMessage } from 'ai'
import type { AIEventInput } from '../events/ai-events.ts'
import type { ControlRequest } from '../events/control.ts'
import { generationClaimKey, toolClaimKey } from '../ids/claim-keys.ts'
import type { AIState } from '../state/ai-state.ts'
import { advance } from './advance.ts'
import type { ControllerOptions } from './controller-options.ts'
import { decide } from './decide.ts'
import { foldDraft } from './draft-fold.ts'
import { isCurrentGeneration } from './due-work.ts'
import { settleAbortedWork } from './settle-work.ts'

/** One round of the controller: what to append, and whose work it ends. */
export interface ControllerRound<M extends UIMessage = UIMessage> {
  /** Append these in one batch, at the index the state was read at. */
  events: AIEventInput<M>[]
  /**
   * The claims of running work these events end (Stop, an interruption,
   * Pause now, a hand-off): revoke them before appending, so the workers'
   * next renewal or fenced write fails and they abort.
   */
  revoke: string[]
}

/**
 * The controller's decision for one round, read off the session's state:
 * the oldest undecided command (`decide`), or with none, what the durable
 * facts make due: the terminal facts of work that ended without its worker,
 * then `advance` (the next step, the end of a response, the next input). The
 * admission lane appends the events at the index it read, so every decision
 * is made against the log as it stands; the rule tests run the same rounds.
 *
 * @example
 * const { events, revoke } = controllerRound(state, { maxSteps: 20 })
 * for (const key of revoke) await store.revokeClaim(sessionId, key)
 * await session.append(events, { expectedIndex: index })
 */
export function controllerRound<M extends UIMessage>(
  state: AIState<M>,
  options: ControllerOptions = {},
): ControllerRound<M> {
  const commandId = Object.keys(state.requests)[0]
  const events =
    commandId === undefined
      ? [...settleAbortedWork(state), ...advance(state, options)]
      : decide(
          state,
          { id: commandId, payload: state.requests[commandId] as ControlRequest<M> },
          options,
        ).events
  return { events, revoke: events.length === 0 ? [] : claimsEndedBy(state, events) }
}

/**
 * The claims of work that is running now and that `events` end: read off
 * the state the events lead to, not off their types. A finished or still
 * running call keeps its worker; a cut-short one loses it.
 */
function claimsEndedBy<M extends UIMessage>(
  state: AIState<M>,
  events: readonly AIEventInput<M>[],
): string[] {
  const after = foldDraft(state, events)
  const keys: string[] = []
  const generation = state.activeGeneration
  if (generation?.status === 'running' && !isCurrentGeneration(after, generation.generationId)) {
    keys.push(generationClaimKey(generation.requestId))
  }
  for (const tool of state.tools) {
    if (tool.status !== 'running') continue
    const now = after.tools.find(
      (candidate) =>
        candidate.toolCallId === tool.toolCallId && candidate.generationId === tool.generationId,
    )
    if (now?.status === 'cancelled' || now?.status === 'interrupted') keys.push(toolClaimKey(tool))
  }
  return keys
}
