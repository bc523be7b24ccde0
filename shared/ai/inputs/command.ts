import type { UIMessage } from 'ai'
import { InvalidEventError, ReservedEventIdError } from '../../log/errors.ts'
import type { EventInput } from '../../log/event.ts'
import { AI_EVENTS } from '../events/ai-events.ts'
import type { ControlRequest } from '../events/control.ts'
import { isAIReservedId } from '../ids.ts'

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

/** Builds one checked command. Builders return a one-element array for spreading. */
export function command<M extends UIMessage>(
  payload: ControlRequest<M>,
  id: string | undefined,
): [ControlCommandInput<M>] {
  if (id !== undefined && isAIReservedId(id)) throw new ReservedEventIdError(id)
  const result = AI_EVENTS['ai.control.requested'].safeParse(payload)
  if (!result.success) {
    throw new InvalidEventError(
      'ai.control.requested',
      result.error.issues.map((issue) => ({
        path: issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key)),
        message: issue.message,
      })),
    )
  }
  // The caller's payload, not zod's copy: a message keeps its exact type.
  return [{ ...(id === undefined ? {} : { id }), type: 'ai.control.requested', payload }]
}
