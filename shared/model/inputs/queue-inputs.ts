import type { UIMessage } from 'ai'
import { type CommandOptions, type ControlCommandInput, command } from './command.ts'

/**
 * Replaces a pending input's content (last write wins, in log order). The
 * message keeps its ID and role.
 *
 * @example
 * inputs.queue.edit({ ...item.message, parts: [{ type: 'text', text: 'Edited' }] })
 */
function edit<M extends UIMessage>(msg: M, options: CommandOptions = {}): [ControlCommandInput<M>] {
  return command<M>({ action: 'queue.edit', message: msg }, options.id)
}

/**
 * Moves a pending input before another; `beforeId: null` moves it to the end.
 *
 * @example
 * inputs.queue.move({ inputId: item.id, beforeId: null })
 */
function move<M extends UIMessage = UIMessage>(
  options: { inputId: string; beforeId: string | null } & CommandOptions,
): [ControlCommandInput<M>] {
  return command<M>(
    { action: 'queue.move', inputId: options.inputId, beforeId: options.beforeId },
    options.id,
  )
}

/**
 * Removes a pending input. Its original submission stays in the log.
 *
 * @example
 * inputs.queue.remove(item.id)
 */
function remove<M extends UIMessage = UIMessage>(
  inputId: string,
  options: CommandOptions = {},
): [ControlCommandInput<M>] {
  return command<M>({ action: 'queue.remove', inputId }, options.id)
}

/**
 * Hands the observed turn off to a queued user input, as `steer()` does,
 * keeping its ID and latest accepted content. With no active turn
 * (`afterStepOf: null`) the input moves to the front.
 *
 * @example
 * inputs.queue.sendNow(item.id, { afterStepOf: state.active?.turnId ?? null })
 */
function sendNow<M extends UIMessage = UIMessage>(
  inputId: string,
  options: { afterStepOf: string | null } & CommandOptions,
): [ControlCommandInput<M>] {
  return command<M>(
    { action: 'queue.sendNow', inputId, afterStepOf: options.afterStepOf },
    options.id,
  )
}

export const queue = { edit, move, remove, sendNow }
