import { convertToModelMessages, type ModelMessage, type ToolSet, type UIMessage } from 'ai'
import type { AIState } from '../../model/state/ai-state.ts'
import { isCompactionPart } from '../../model/state/compaction-part.ts'
import type { TranscriptMessage } from '../../model/state/message-types.ts'
import { withParts } from '../../model/state/message-types.ts'
import { SUMMARY_PREFIX } from './compaction.ts'

/**
 * The UI messages a model step sees: the transcript with A2's own markers
 * (compaction parts) removed and empty messages (a response that has not
 * streamed yet) left out.
 */
export function promptMessages<M extends UIMessage>(
  state: AIState<M>,
  { withoutCurrentStep = false }: { withoutCurrentStep?: boolean } = {},
): M[] {
  const messages: M[] = []
  let transcript = state.messages as TranscriptMessage<M>[]
  const response = state.response
  if (withoutCurrentStep && response && response.position >= 0) {
    // A failed or abandoned attempt's output leaves the prompt: the new
    // attempt answers from the last completed step.
    transcript = transcript.map((message, at) =>
      at === response.position
        ? { ...message, parts: message.parts.slice(0, response.stepStart) }
        : message,
    )
  }
  const compacted = state.compacted
  const cut = compacted
    ? transcript.findIndex((message) => message.id === compacted.upToMessageId)
    : -1
  if (compacted && cut >= 0) {
    // The summary stands in for everything up to the message it covers.
    const summary = { type: 'text', text: `${SUMMARY_PREFIX}${compacted.summary}` }
    messages.push(withParts<M>({ id: compacted.compactionId, role: 'user' }, [summary]))
    transcript = transcript.slice(cut + 1)
  }
  for (const message of transcript) {
    const parts = message.parts.filter((part) => !isCompactionPart(part))
    if (parts.length > 0) messages.push(withParts<M>(message, parts))
  }
  return messages
}

export async function modelMessagesOf(
  messages: UIMessage[],
  tools: ToolSet,
): Promise<ModelMessage[]> {
  return convertToModelMessages(messages, { tools, ignoreIncompleteToolCalls: true })
}

/** Tool definitions as the model sees them: no `execute`, since A2 runs tools itself. */
export function toolDefinitions(tools: ToolSet): ToolSet {
  return Object.fromEntries(
    Object.entries(tools).map(([name, definition]) => {
      const { execute: _execute, ...rest } = definition as typeof definition & { execute?: unknown }
      return [name, rest]
    }),
  ) as ToolSet
}
