import type { UIMessage } from 'ai'
import type { PendingApproval, PendingInput } from '../state/ai-state.ts'
import { type CommandOptions, type ControlCommandInput, command } from './command.ts'

type ApprovalOwner = Pick<
  PendingApproval,
  'approvalId' | 'toolCallId' | 'messageId' | 'generationId'
>

/**
 * Answers a pending approval. It copies the request, message, generation and
 * approval IDs, so a delayed click cannot authorize a later model step.
 *
 * @example
 * inputs.approval(state.pendingApprovals[0], { approved: false, reason: 'Denied by the user' })
 */
export function approval<M extends UIMessage = UIMessage>(
  pending: ApprovalOwner,
  options: { approved: boolean; reason?: string } & CommandOptions,
): [ControlCommandInput<M>] {
  return command<M>(
    {
      action: 'approval',
      approvalId: pending.approvalId,
      toolCallId: pending.toolCallId,
      messageId: pending.messageId,
      generationId: pending.generationId,
      approved: options.approved,
      ...(options.reason === undefined ? {} : { reason: options.reason }),
    },
    options.id,
  )
}

/**
 * Answers a pending input request with an application-defined value.
 *
 * @example
 * inputs.input(state.pendingInputs[0], { city: 'Berlin' })
 */
export function input<M extends UIMessage = UIMessage>(
  pending: Pick<PendingInput, 'inputRequestId'>,
  value: unknown,
  options: CommandOptions = {},
): [ControlCommandInput<M>] {
  return command<M>({ action: 'input', inputRequestId: pending.inputRequestId, value }, options.id)
}

/**
 * Asks the user for input (trusted server code). It joins the active turn
 * unless `turnId` names another; the event ID is the `inputRequestId`, so
 * it must be unique across the store: derive it from the tool call's event
 * (`ctx.event.id`), not from the provider's `toolCallId`, which repeats
 * across sessions.
 *
 * @example
 * const ctx = handlerContext()
 * inputs.requestInput({ inputRequestId: idempotentId('pick-city', ctx.event.id), toolCallId, request: { question: 'Which city?' } })
 */
export function requestInput<M extends UIMessage = UIMessage>(options: {
  inputRequestId: string
  request: unknown
  turnId?: string
  messageId?: string
  generationId?: string
  toolCallId?: string
}): [ControlCommandInput<M>] {
  return command<M>({ action: 'requestInput', ...options }, options.inputRequestId)
}

/**
 * A deferred provider tool result (trusted server code, such as an
 * authenticated callback). The controller checks it against the admitted call.
 *
 * @example
 * inputs.toolResult({ toolCallId, generationId, messageId, output: { status: 'done' } })
 */
export function toolResult<M extends UIMessage = UIMessage>(
  result: {
    toolCallId: string
    generationId: string
    messageId: string
    output?: unknown
    errorText?: string
    providerMetadata?: Record<string, unknown>
  } & CommandOptions,
): [ControlCommandInput<M>] {
  const { id, ...payload } = result
  return command<M>({ action: 'toolResult', ...payload }, id)
}
