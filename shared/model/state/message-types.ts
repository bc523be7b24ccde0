import type { UIMessage } from 'ai'
import type { CompactionPart } from './compaction-part.ts'

/**
 * A message as `state.messages` holds it: your message type, whose parts may
 * also include the reducer's compaction marker.
 */
export type TranscriptMessage<M extends UIMessage = UIMessage> = Omit<M, 'parts'> & {
  parts: Array<M['parts'][number] | CompactionPart>
}

// An app's message type `M` narrows the AI SDK's `UIMessage` by its metadata,
// data and tool types. The fold builds messages and parts from the SDK's
// unions (they come off the wire), and TypeScript cannot relate those to
// `M`, nor `M` to `TranscriptMessage<M>` (a mapped type over a generic).
// These three functions are the only places the fold asserts it, each sound
// for the reason it gives.

/**
 * An input or a response as a transcript message: a transcript message is an
 * `M` whose parts may also hold A2's compaction part, so every `M` is one.
 */
export function toTranscript<M extends UIMessage>(message: M): TranscriptMessage<M> {
  return message as unknown as TranscriptMessage<M>
}

/**
 * A transcript message the fold knows to be an input or a response (only
 * the compaction summary holds a compaction part), as the app's type.
 */
export function fromTranscript<M extends UIMessage>(message: TranscriptMessage<M>): M {
  return message as unknown as M
}

/**
 * `message` with parts the fold built from validated chunks (the chunk state
 * machine works on loose part records): each part has the shape of the SDK's
 * part for the chunk that made it, which is what `M` holds.
 */
export function withParts<M extends UIMessage>(
  message: Omit<M, 'parts'> | Pick<UIMessage, 'id' | 'role'>,
  parts: readonly { type: string }[],
): M {
  return { ...message, parts } as unknown as M
}
