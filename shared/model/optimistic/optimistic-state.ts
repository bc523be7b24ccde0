import type { UIMessage } from 'ai'
import type { ControllerOptions } from '../controller/controller-options.ts'
import { controllerRounds } from '../controller/controller-rounds.ts'
import { decide } from '../controller/decide.ts'
import { foldDraft } from '../controller/draft-fold.ts'
import type { ControlRequest } from '../events/control.ts'
import type { AIState } from '../state/ai-state.ts'
import { toTranscript } from '../state/message-types.ts'

/** A command pushed and not yet decided. The client gives every command an ID. */
export interface PendingCommand<M extends UIMessage = UIMessage> {
  id: string
  type: 'ai.control.requested'
  payload: ControlRequest<M>
}

/**
 * Confirmed state with the client's pending commands applied, with no I/O.
 *
 * The preview is the controller's own decision over the confirmed state,
 * and the rounds that follow it (`controllerRounds`, up to the next command,
 * through what a server would revoke or settle), so it converges by
 * construction: when the server decides the same command on the same state,
 * the confirmed state equals the preview. An idle send is
 * admitted at once (`starting: true`); later sends and sends while paused
 * wait in `inbox.items`; a pending Stop clears `active`; a command the
 * controller would reject changes nothing. One display rule differs from
 * the confirmed state: steering, and Send now aimed at the active turn, show
 * in `messages` after the current response instead of at the front of the
 * inbox, so the user sees what they sent where the conversation continues.
 *
 * @example
 * const view = optimisticAIState(snapshot.state, pendingCommands)
 */
export function optimisticAIState<M extends UIMessage>(
  confirmed: AIState<M>,
  pending: readonly PendingCommand<M>[],
  options: ControllerOptions = {},
): AIState<M> {
  if (pending.length === 0) return confirmed
  let state = confirmed
  const steered = new Set<string>()
  const sentNow = new Set<string>()
  for (const command of pending) {
    if (!Object.hasOwn(state.requests, command.id)) state = foldDraft(state, [command])
    const decision = decide(state, command, options)
    state = controllerRounds(foldDraft(state, decision.events), options, {
      revokes: true,
      passesPausing: true,
    }).state
    if (decision.outcome !== 'applied') continue
    const request = command.payload
    if (request.action === 'steer') steered.add(request.message.id)
    if (request.action === 'queue.sendNow' && request.afterStepOf !== null)
      sentNow.add(request.inputId)
  }
  const activeTurn = state.active?.turnId
  const shown = state.inbox.items.filter(
    (item) => steered.has(item.id) || (sentNow.has(item.id) && item.afterStepOf === activeTurn),
  )
  const view: AIState<M> = { ...state, receipt: confirmed.receipt }
  if (shown.length === 0) return view
  return {
    ...view,
    messages: [...view.messages, ...shown.map((item) => toTranscript(item.message))],
    inbox: { ...view.inbox, items: view.inbox.items.filter((item) => !shown.includes(item)) },
  }
}
