import type { UIMessage } from 'ai'
import type { AIEventInput, ControlCommand } from '../events/ai-events.ts'
import type { ControlRequest } from '../events/control.ts'
import { isWellFormedControl } from '../events/control-check.ts'
import type { RejectionReason } from '../events/controller-events.ts'
import { derivedId } from '../ids/ids.ts'
import type { AIState } from '../state/ai-state.ts'
import { admissionEvents } from './admission.ts'
import { advance } from './advance.ts'
import type { ControllerOptions } from './controller-options.ts'
import { foldDraft } from './draft-fold.ts'
import {
  judgeMessage,
  judgeQueueEdit,
  judgeQueueMove,
  judgeQueueRemove,
  judgeQueueSendNow,
} from './judge-inbox.ts'
import { judgeApproval, judgeInput, judgeRequestInput, judgeToolResult } from './judge-tools.ts'
import { judgeInterrupt, judgeResume, judgeRetry, judgeStop } from './judge-turn.ts'
import { reject, type Verdict } from './verdict.ts'

/** What the controller made of one command. */
export interface Decision<M extends UIMessage = UIMessage> {
  /** Append these, in order, after the command. */
  events: AIEventInput<M>[]
  outcome: 'applied' | 'rejected'
  reason?: RejectionReason
}

function judge<M extends UIMessage>(
  state: AIState<M>,
  commandId: string,
  request: ControlRequest<M>,
): Verdict<M> {
  switch (request.action) {
    case 'message':
    case 'steer':
      return judgeMessage(state, commandId, request)
    case 'queue.edit':
      return judgeQueueEdit(state, request)
    case 'queue.move':
      return judgeQueueMove(state, request)
    case 'queue.remove':
      return judgeQueueRemove(state, request)
    case 'queue.sendNow':
      return judgeQueueSendNow(state, request)
    case 'stop':
      return judgeStop(state, request)
    case 'interrupt':
      return judgeInterrupt(state, request)
    case 'retry':
      return judgeRetry(state, request)
    case 'pause':
      return { changes: [{ op: 'pause', when: request.when }] }
    case 'resume':
      return judgeResume(state)
    case 'approval':
      return judgeApproval(state, request)
    case 'input':
      return judgeInput(state, request)
    case 'requestInput':
      return judgeRequestInput(state, request)
    case 'toolResult':
      return judgeToolResult(state, commandId, request)
  }
}

/**
 * Decides one command against confirmed state: the events that apply it
 * (or only a rejected receipt), its receipt, and everything it makes due
 * (such as the first generation request of an admitted turn). Every ID is
 * derived from the command, so deciding it again writes the same events.
 *
 * @example
 * const { events, outcome } = decide(state, command)
 * await session.append(...events)
 */
export function decide<M extends UIMessage>(
  state: AIState<M>,
  command: Pick<ControlCommand<M>, 'id' | 'payload'>,
  options: ControllerOptions = {},
): Decision<M> {
  const commandId = command.id
  // The log validates commands against the contract; a hand-built or forged
  // one that slipped past is rejected here instead of breaking the decision.
  const wellFormed = (options.isWellFormed ?? isWellFormedControl)(command.payload)
  const request = command.payload
  const receipt = (outcome: 'applied' | 'rejected', reason?: RejectionReason): AIEventInput<M> => ({
    id: derivedId('decided', commandId),
    type: 'ai.control.decided',
    payload: {
      commandId,
      // A forged payload may lack an action; the receipt still names the command.
      action: wellFormed ? request.action : 'invalid',
      outcome,
      ...(reason === undefined ? {} : { reason }),
    },
  })
  const verdict: Verdict<M> = !wellFormed
    ? reject('invalid-command')
    : state.closed
      ? reject('session-closed')
      : judge(state, commandId, request)
  if ('reject' in verdict) {
    return {
      events: [receipt('rejected', verdict.reject)],
      outcome: 'rejected',
      reason: verdict.reject,
    }
  }
  // The command must be in state for admission and the inbox to read its message.
  const withCommand = Object.hasOwn(state.requests, commandId)
    ? state
    : foldDraft(state, [{ id: commandId, type: 'ai.control.requested', payload: request }])
  const applied: AIEventInput<M>[] =
    'admitNow' in verdict
      ? admissionEvents([{ id: commandId, commandId }], verdict.admitNow.passive, commandId)
      : [
          ...(verdict.before ?? []),
          {
            id: derivedId('committed', commandId),
            type: 'ai.control.committed',
            payload: { commandId, changes: verdict.changes },
          },
          ...(verdict.after ?? []),
        ]
  const decided = [...applied, receipt('applied')]
  return {
    events: [...decided, ...advance(foldDraft(withCommand, decided), options)],
    outcome: 'applied',
  }
}
