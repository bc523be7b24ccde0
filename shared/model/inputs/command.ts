import type { UIMessage } from 'ai'
import { InvalidEventError, ReservedEventIdError } from '../../log/errors.ts'
import type { EventInput } from '../../log/event.ts'
import type { ControlRequest } from '../events/control.ts'
import { controlIssue } from '../events/control-check.ts'
import { isAIReservedId } from '../ids/ids.ts'

/** A command as the builders return it, ready for `push()` or `append()`. */
export type ControlCommandInput<M extends UIMessage = UIMessage> = EventInput<
  'ai.control.requested',
  ControlRequest<M>
>

/** Options every builder without a message takes: the command's event ID. */
export interface CommandOptions {
  /** Choose it to make a resent command replay; the log assigns one otherwise. */
  id?: string
}

/**
 * Builds one checked command. Builders return a one-element array for
 * spreading. The check is the command schema's, by hand (`controlIssue`):
 * the builders run in browsers, which need not load zod for it; the log
 * still validates the command with the schema when it is pushed or appended.
 */
export function command<M extends UIMessage>(
  payload: ControlRequest<M>,
  id: string | undefined,
): [ControlCommandInput<M>] {
  if (id !== undefined && isAIReservedId(id)) throw new ReservedEventIdError(id)
  const issue = controlIssue(payload)
  if (issue !== undefined) throw new InvalidEventError('ai.control.requested', [issue])
  return [{ ...(id === undefined ? {} : { id }), type: 'ai.control.requested', payload }]
}
