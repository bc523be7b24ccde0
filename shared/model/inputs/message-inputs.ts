import type { UIMessage } from 'ai'
import { type ControlCommandInput, command } from './command.ts'

/**
 * A new message for the inbox. Its event ID is the message ID, so resending
 * it replays. `generate: false` adds it without starting a turn: it joins
 * the next generating turn's context.
 *
 * @example
 * await session.push(...inputs.message({ id: crypto.randomUUID(), role: 'user', parts: [{ type: 'text', text: 'Hi' }] }))
 */
export function message<M extends UIMessage>(
  msg: M,
  options: { generate?: boolean } = {},
): [ControlCommandInput<M>] {
  return command<M>({ action: 'message', message: msg, generate: options.generate ?? true }, msg.id)
}

/**
 * A passive message (`generate: false`), of any role. Non-user seeds are for
 * trusted server appends, such as importing a conversation.
 *
 * @example
 * await session.append(...inputs.seed({ id: 'import-1', role: 'assistant', parts: [{ type: 'text', text: 'Welcome back.' }] }))
 */
export function seed<M extends UIMessage>(msg: M): [ControlCommandInput<M>] {
  return message(msg, { generate: false })
}

/**
 * Steers the observed turn: the message goes right after the turn's earlier
 * steering, and the turn hands off before its next model step. With no
 * active turn (`afterStepOf: null`, or a turn that has ended) it sends like
 * `message()`.
 *
 * @example
 * inputs.steer(msg, { afterStepOf: state.active?.turnId ?? null })
 */
export function steer<M extends UIMessage>(
  msg: M,
  options: { afterStepOf: string | null },
): [ControlCommandInput<M>] {
  return command<M>({ action: 'steer', message: msg, afterStepOf: options.afterStepOf }, msg.id)
}
