import type { ControlRequest } from './control.ts'

// What each command action means for who may push it and how it is named.
// Zod-free, unlike the command schema beside it (control.ts), so a browser
// that only builds and pushes commands never loads zod.

/** Commands that carry a new input: their event ID is the message ID. */
export const NEW_INPUT_ACTIONS = ['message', 'steer'] as const

/**
 * Whether a browser may push this command. `requestInput()`, `toolResult()`
 * and non-user messages (from `seed()`) are for trusted server appends.
 */
export function browserMayPush(request: ControlRequest): boolean {
  if (request.action === 'requestInput' || request.action === 'toolResult') return false
  if (
    request.action === 'message' ||
    request.action === 'steer' ||
    request.action === 'queue.edit'
  ) {
    return request.message.role === 'user'
  }
  return true
}
