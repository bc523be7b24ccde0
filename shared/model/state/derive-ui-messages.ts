import type { UIMessage } from 'ai'
import type { StoredEvent } from '../../log/event.ts'
import { initialAIState } from './ai-state.ts'
import type { TranscriptMessage } from './message-types.ts'
import { reduceAIState } from './reduce-ai-state.ts'

/**
 * The transcript of a raw history: the same fold the reducer runs, with the
 * streamed chunks applied to each response as `useChat` would show them.
 *
 * @example
 * const messages = deriveUIMessages(await session.read())
 */
export function deriveUIMessages<M extends UIMessage = UIMessage>(
  events: Iterable<StoredEvent>,
): TranscriptMessage<M>[] {
  let state = initialAIState<M>()
  for (const event of events) state = reduceAIState(state, event)
  return state.messages
}
