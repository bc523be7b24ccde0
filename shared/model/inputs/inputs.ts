import { message, seed, steer } from './message-inputs.ts'
import { queue } from './queue-inputs.ts'
import { approval, input, requestInput, toolResult } from './request-inputs.ts'
import { interrupt, pause, resume, retry, stop } from './turn-inputs.ts'

/**
 * Pure, isomorphic command builders for raw `push()` and server `append()`.
 * Each returns the command events to spread into the call.
 *
 * @example
 * await session.push(...inputs.pause({ when: 'after-turn' }))
 */
export const inputs = {
  message,
  seed,
  steer,
  approval,
  input,
  requestInput,
  retry,
  stop,
  interrupt,
  pause,
  resume,
  queue,
  toolResult,
}
