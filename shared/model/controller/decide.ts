import type { UIMessage } from 'ai'
import type { AIEventInput, ControlCommand } from '../events/ai-events.ts'
import type { ControlRequest } from '../events/control.ts'
import { isWellFormedControl } from '../events/control-check.ts'
import type { ControlChange, RejectionReason } from '../events/controller-events.ts'
import { derivedId } from '../ids/ids.ts'
import type { AIState, InboxItem } from '../state/ai-state.ts'
import { admissionEvents } from './admission.ts'
import { advance } from './advance.ts'
import type { ControllerOptions } from './controller-options.ts'
import { foldDraft } from './draft-fold.ts'

/** What the controller made of one command. */
export interface Decision<M extends UIMessage = UIMessage> {
  /** Append these, in order, after the command. */
  events: AIEventInput<M>[]
  outcome: 'applied' | 'rejected'
  reason?: RejectionReason
}

type Verdict<M extends UIMessage> =
  | { reject: RejectionReason }
  | { changes: ControlChange[]; before?: AIEventInput<M>[]; after?: AIEventInput<M>[] }
  | { admitNow: { passive: boolean } }

const reject = (reason: RejectionReason): { reject: RejectionReason } => ({ reject: reason })

/** Where new steering for `turnId` goes: right after its earlier steering, or first. */
function steeringSlot<M extends UIMessage>(
  items: readonly InboxItem<M>[],
  turnId: string,
  except?: string,
): string | null {
  const rest = items.filter((item) => item.id !== except)
  let at = 0
  rest.forEach((item, index) => {
    if (item.afterStepOf === turnId) at = index + 1
  })
  return rest[at]?.id ?? null
}

const isIdle = <M extends UIMessage>(state: AIState<M>): boolean =>
  state.active === null && !state.inbox.paused && state.inbox.items.length === 0

function ownerMatches<M extends UIMessage>(
  state: AIState<M>,
  owner: Extract<ControlRequest, { action: 'interrupt' }>['owner'],
): boolean {
  const active = state.active
  if (active === null) return false
  if ('requestId' in owner) {
    return (
      state.activeRequestId === owner.requestId && state.activeResponseMessageId === owner.messageId
    )
  }
  if ('generationId' in owner) {
    return (
      state.activeGeneration?.generationId === owner.generationId &&
      state.activeGeneration.responseMessageId === owner.responseMessageId
    )
  }
  if ('approvalId' in owner) {
    return state.pendingApprovals.some(
      (approval) => approval.approvalId === owner.approvalId && approval.turnId === active.turnId,
    )
  }
  if ('inputRequestId' in owner) {
    return state.pendingInputs.some(
      (input) =>
        input.inputRequestId === owner.inputRequestId &&
        input.turnId === active.turnId &&
        input.status === 'pending',
    )
  }
  return state.tools.some(
    (tool) =>
      tool.toolCallId === owner.toolCallId &&
      tool.turnId === active.turnId &&
      tool.status === 'running',
  )
}

function judge<M extends UIMessage>(
  state: AIState<M>,
  commandId: string,
  request: ControlRequest<M>,
): Verdict<M> {
  const active = state.active
  const pending = (inputId: string) => state.inbox.items.find((item) => item.id === inputId)
  switch (request.action) {
    case 'message':
    case 'steer': {
      if (request.message.id !== commandId) return reject('invalid-command')
      const known =
        pending(request.message.id) !== undefined ||
        state.messages.some((message) => message.id === request.message.id)
      if (known) return reject('invalid-command')
      const steers =
        request.action === 'steer' &&
        request.afterStepOf !== null &&
        active?.turnId === request.afterStepOf
      if (steers && active !== null) {
        const changes: ControlChange[] = [
          {
            op: 'inbox.add',
            inputId: request.message.id,
            beforeId: steeringSlot(state.inbox.items, active.turnId),
            generate: true,
            afterStepOf: active.turnId,
          },
        ]
        if (!active.handoff) changes.push({ op: 'turn.handoff', turnId: active.turnId })
        return { changes }
      }
      // With no active turn (or a stale one), steering sends like a message.
      const generate = request.action === 'steer' || request.generate
      if (isIdle(state)) return { admitNow: { passive: !generate } }
      return {
        changes: [
          {
            op: 'inbox.add',
            inputId: request.message.id,
            beforeId: null,
            generate,
            afterStepOf: null,
          },
        ],
      }
    }
    case 'queue.edit': {
      const item = pending(request.message.id)
      if (item === undefined) return reject('not-pending')
      if (item.message.role !== request.message.role) return reject('role-mismatch')
      return { changes: [{ op: 'inbox.edit', inputId: item.id }] }
    }
    case 'queue.move': {
      if (pending(request.inputId) === undefined) return reject('not-pending')
      if (request.beforeId !== null && pending(request.beforeId) === undefined)
        return reject('not-pending')
      return {
        changes: [{ op: 'inbox.move', inputId: request.inputId, beforeId: request.beforeId }],
      }
    }
    case 'queue.remove':
      if (pending(request.inputId) === undefined) return reject('not-pending')
      return { changes: [{ op: 'inbox.remove', inputId: request.inputId }] }
    case 'queue.sendNow': {
      const item = pending(request.inputId)
      if (item === undefined) return reject('not-pending')
      if (item.message.role !== 'user') return reject('not-user-input')
      if (request.afterStepOf === null) {
        if (active !== null) return reject('stale-turn')
        const first = state.inbox.items.find((candidate) => candidate.id !== item.id)
        return {
          changes: [
            { op: 'inbox.steer', inputId: item.id, beforeId: first?.id ?? null, afterStepOf: null },
          ],
        }
      }
      if (active?.turnId !== request.afterStepOf) return reject('stale-turn')
      const changes: ControlChange[] = [
        {
          op: 'inbox.steer',
          inputId: item.id,
          beforeId: steeringSlot(state.inbox.items, active.turnId, item.id),
          afterStepOf: active.turnId,
        },
      ]
      if (!active.handoff) changes.push({ op: 'turn.handoff', turnId: active.turnId })
      return { changes }
    }
    case 'stop':
      if (active?.turnId !== request.turnId) return reject('stale-turn')
      return {
        changes: [
          { op: 'turn.stop', turnId: active.turnId, frontier: request.frontier, reason: 'stopped' },
        ],
      }
    case 'interrupt':
      if (active === null || !ownerMatches(state, request.owner)) return reject('stale-owner')
      return {
        changes: [
          { op: 'turn.stop', turnId: active.turnId, frontier: null, reason: 'interrupted' },
        ],
      }
    case 'retry':
      if (active?.turnId !== request.turnId) return reject('stale-turn')
      if (active.phase !== 'failed') return reject('not-failed')
      return { changes: [{ op: 'turn.retry', turnId: active.turnId, retryId: request.retryId }] }
    case 'pause':
      return { changes: [{ op: 'pause', when: request.when }] }
    case 'resume': {
      const held = active !== null && (active.phase === 'paused' || active.phase === 'pausing')
      if (!state.inbox.paused && !held) return reject('not-paused')
      return { changes: [{ op: 'resume' }] }
    }
    case 'approval': {
      const approval = state.pendingApprovals.find(
        (candidate) => candidate.approvalId === request.approvalId,
      )
      const matches =
        approval !== undefined &&
        approval.turnId === active?.turnId &&
        approval.toolCallId === request.toolCallId &&
        approval.messageId === request.messageId &&
        approval.generationId === request.generationId
      if (!matches) return reject('stale-approval')
      return {
        changes: [
          {
            op: 'approval.respond',
            approvalId: request.approvalId,
            approved: request.approved,
            ...(request.reason === undefined ? {} : { reason: request.reason }),
          },
        ],
        after: request.approved
          ? []
          : [
              {
                id: derivedId('denied', request.approvalId),
                type: 'ai.tool.result',
                payload: {
                  toolCallId: request.toolCallId,
                  generationId: request.generationId,
                  messageId: request.messageId,
                  outcome: 'denied',
                  ...(request.reason === undefined ? {} : { reason: request.reason }),
                },
              },
            ],
      }
    }
    case 'input': {
      const input = state.pendingInputs.find(
        (candidate) => candidate.inputRequestId === request.inputRequestId,
      )
      if (input?.status !== 'pending') return reject('stale-input')
      return {
        changes: [
          { op: 'input.respond', inputRequestId: request.inputRequestId, value: request.value },
        ],
      }
    }
    case 'requestInput': {
      if (state.pendingInputs.some((input) => input.inputRequestId === request.inputRequestId)) {
        return reject('invalid-command')
      }
      if (request.turnId !== undefined && request.turnId !== active?.turnId)
        return reject('stale-turn')
      // A tool's request joins its call's turn: once that turn ended (a Stop
      // decided first), the request is stale, as the turn's own pending
      // inputs were closed with it, not a pending input of no turn.
      if (
        request.turnId === undefined &&
        request.toolCallId !== undefined &&
        !state.tools.some(
          (tool) => tool.toolCallId === request.toolCallId && tool.turnId === active?.turnId,
        )
      )
        return reject('stale-turn')
      const { action: _action, turnId, ...rest } = request
      return {
        changes: [{ op: 'input.request', ...rest, turnId: turnId ?? active?.turnId ?? null }],
      }
    }
    case 'toolResult': {
      const tool = state.tools.find(
        (candidate) =>
          candidate.toolCallId === request.toolCallId &&
          candidate.generationId === request.generationId &&
          candidate.messageId === request.messageId,
      )
      if (tool === undefined || tool.turnId !== active?.turnId || tool.status !== 'running') {
        return reject('stale-tool-call')
      }
      return {
        changes: [],
        before: [
          {
            id: derivedId('tool-result', commandId),
            type: 'ai.tool.result',
            payload: {
              toolCallId: request.toolCallId,
              generationId: request.generationId,
              messageId: request.messageId,
              providerExecuted: true,
              ...(request.errorText === undefined
                ? { outcome: 'output' as const, output: request.output }
                : { outcome: 'error' as const, errorText: request.errorText }),
              ...(request.providerMetadata === undefined
                ? {}
                : { providerMetadata: request.providerMetadata }),
            },
          },
        ],
      }
    }
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
