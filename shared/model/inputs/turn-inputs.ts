import type { UIMessage } from 'ai'
import type { ControlRequest } from '../events/control.ts'
import { type CommandOptions, type ControlCommandInput, command } from './command.ts'

type Owner = Extract<ControlRequest, { action: 'interrupt' }>['owner']

/**
 * Reruns the turn's failed model call. Use a fresh `retryId` per click; it
 * is also the command's event ID, so resending one retry replays.
 *
 * @example
 * inputs.retry({ turnId: state.active.turnId, retryId: crypto.randomUUID() })
 */
export function retry<M extends UIMessage = UIMessage>(options: {
  turnId: string
  retryId: string
}): [ControlCommandInput<M>] {
  return command<M>(
    { action: 'retry', turnId: options.turnId, retryId: options.retryId },
    options.retryId,
  )
}

/**
 * Stops the turn, rewinding its response to `frontier`: the log index of the
 * state the user saw (`snapshot.index`).
 *
 * @example
 * inputs.stop({ turnId: state.active.turnId, frontier: snapshot.index })
 */
export function stop<M extends UIMessage = UIMessage>(
  options: { turnId: string; frontier: number } & CommandOptions,
): [ControlCommandInput<M>] {
  return command<M>(
    { action: 'stop', turnId: options.turnId, frontier: options.frontier },
    options.id,
  )
}

/**
 * Interrupts exactly one owner, so a delayed interruption cannot stop later
 * work: `{ requestId, messageId }` before the generation starts,
 * `{ generationId, responseMessageId }` while it runs, or an `approvalId`,
 * `inputRequestId` or `toolCallId` while the response waits.
 *
 * @example
 * inputs.interrupt({ requestId: state.activeRequestId, messageId: state.activeResponseMessageId })
 */
export function interrupt<M extends UIMessage = UIMessage>(
  owner: Owner,
  options: CommandOptions = {},
): [ControlCommandInput<M>] {
  return command<M>({ action: 'interrupt', owner }, options.id)
}

/**
 * Closes inbox admission. `after-turn` lets the active turn finish; `now`
 * also cancels its model and tool work.
 *
 * @example
 * inputs.pause({ when: 'after-turn' })
 */
export function pause<M extends UIMessage = UIMessage>(
  options: { when: 'after-turn' | 'now' } & CommandOptions,
): [ControlCommandInput<M>] {
  return command<M>({ action: 'pause', when: options.when }, options.id)
}

/**
 * Reopens admission, resuming retained work before admitting another input.
 *
 * @example
 * inputs.resume()
 */
export function resume<M extends UIMessage = UIMessage>(
  options: CommandOptions = {},
): [ControlCommandInput<M>] {
  return command<M>({ action: 'resume' }, options.id)
}
