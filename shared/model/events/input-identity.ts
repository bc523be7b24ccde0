import { InvalidEventError } from '../../log/errors.ts'
import type { EventInput } from '../../log/event.ts'
import { NEW_INPUT_ACTIONS } from './control-actions.ts'

/**
 * The message ID a new-input command (`message`, `steer`) must use as its
 * event ID, or undefined for any other event.
 */
export function newInputIdOf(event: EventInput): string | undefined {
  if (event.type !== 'ai.control.requested') return undefined
  const payload = event.payload as { action?: unknown; message?: { id?: unknown } } | null
  if (!(NEW_INPUT_ACTIONS as readonly unknown[]).includes(payload?.action)) return undefined
  const id = payload?.message?.id
  return typeof id === 'string' ? id : undefined
}

/**
 * "New-input commands ... use the message ID as their event ID, and
 * hand-written commands must too" (seed 003). The log's ID guard then keeps
 * message IDs unique and reserved (`a2.ai:`) ones for A2, so a command that
 * would reuse an earlier message's ID, or take a reserved one, is refused
 * before it is stored. A command with no event ID gets its message's ID;
 * one with another ID is refused with `INVALID_EVENT`.
 */
export function checkInputIdentity<Event extends EventInput>(event: Event): Event {
  const messageId = newInputIdOf(event)
  if (messageId === undefined || event.id === messageId) return event
  if (event.id === undefined) return { ...event, id: messageId }
  throw new InvalidEventError(event.type, [
    {
      path: ['message', 'id'],
      message: `is "${messageId}" but the event ID is "${event.id}": a new input's event ID is its message ID`,
    },
  ])
}
