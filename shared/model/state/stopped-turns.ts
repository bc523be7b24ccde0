import type { UIMessage } from 'ai'
import { responseIdFor } from '../ids/ids.ts'
import type { AIState } from './ai-state.ts'

/**
 * The user messages whose turn Stop ended before its response showed
 * anything (Stop before the first token): the transcript has no response
 * to mark, so a UI marks the turn after its input instead. A response that
 * kept anything is in the transcript, and `state.stoppedResponseIds` names it.
 *
 * @example
 * const unanswered = stoppedUnanswered(state)
 * // render "Stopped" after each user message whose ID is in `unanswered`
 */
export function stoppedUnanswered<M extends UIMessage>(state: AIState<M>): ReadonlySet<string> {
  if (state.stoppedResponseIds.length === 0) return new Set()
  const stopped = new Set(state.stoppedResponseIds)
  const shown = new Set(state.messages.map((message) => message.id))
  const unanswered = new Set<string>()
  for (const message of state.messages) {
    if (message.role !== 'user') continue
    // A turn's response is named after the input that started it.
    const response = responseIdFor(message.id)
    if (stopped.has(response) && !shown.has(response)) unanswered.add(message.id)
  }
  return unanswered
}
