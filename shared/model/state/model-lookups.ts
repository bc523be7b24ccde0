import type { UIMessage } from 'ai'
import type { AIState } from './ai-state.ts'

/**
 * Whether A2 gave up looking a model's metadata up: its lookup exhausted its
 * retries and was dead-lettered (under the model, or, as older runtimes
 * recorded it, under the lane alone). Such a model stays `pending`, and no
 * turn or reader looks it up again.
 */
export function lookupGaveUp<M extends UIMessage>(state: AIState<M>, modelId: string): boolean {
  return state.deadLetters.some(
    (letter) => letter.lane === 'metadata' && (letter.key === undefined || letter.key === modelId),
  )
}
