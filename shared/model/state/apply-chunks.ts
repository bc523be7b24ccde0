import type { UIMessage, UIMessageChunk } from 'ai'
import { applyContentChunk, applyDataChunk } from './apply-content-chunks.ts'
import { applyReasoningChunk, applyTextChunk } from './apply-text-chunks.ts'
import { applyToolInputChunk } from './apply-tool-input-chunks.ts'
import { applyToolOutputChunk } from './apply-tool-output-chunks.ts'
import { type ChunkDraft, type ChunkOf, openDraft, type PartialToolCall } from './chunk-draft.ts'
import type { IdMap } from './id-map.ts'
import { mergeObjects } from './merge-objects.ts'
import { withParts } from './message-types.ts'

// Why this file exists: the AI SDK applies `UIMessageChunk`s to a `UIMessage`
// in `processUIMessageStream`, which is internal and asynchronous; `ai` only
// exports it wrapped in `readUIMessageStream()` (a stream of snapshots). The
// reducer is a synchronous fold, so this is the same state machine, case for
// case, over JSON-safe bookkeeping (part indexes instead of object references).
// A differential property test (test/shared/model/state/apply-chunks.test.ts) feeds the same
// chunks to `readUIMessageStream()` and requires the same message, so the
// transcript equals what `useChat` shows.
//
// Deliberate differences, both for a durable log that must never stop folding:
// - A chunk the SDK would reject (a delta for a part that never started) is
//   skipped; the SDK errors the stream and stops reading.
// - `start.messageId` never renames the message: A2 fixes the response
//   message ID when it requests the generation.
//
// Each chunk family lives beside this file (apply-*-chunks.ts), writing
// through one ChunkDraft (chunk-draft.ts); this file dispatches and handles the
// step and message-level chunks.
//
// Cost: one call copies the parts array of the current message once and the
// parts it touches; it never looks at other messages.

/** What the SDK keeps beside the message while it streams, JSON-safe. */
export interface StreamCursor {
  /** Text chunk ID to the index of its part. */
  activeText: IdMap<number>
  activeReasoning: IdMap<number>
  partialToolCalls: IdMap<PartialToolCall>
}

export function emptyCursor(): StreamCursor {
  return { activeText: {}, activeReasoning: {}, partialToolCalls: {} }
}

/** Step and message-level chunks: step boundaries and message metadata. */
function applyStepChunk(
  draft: ChunkDraft,
  chunk: ChunkOf<
    'start-step' | 'reset-step' | 'start' | 'finish' | 'message-metadata' | 'finish-step'
  >,
): void {
  switch (chunk.type) {
    case 'start-step':
      draft.push({ type: 'step-start' })
      break
    case 'reset-step':
      draft.activeText = {}
      draft.activeReasoning = {}
      draft.partialToolCalls = {}
      draft.parts.length = draft.currentStepStart()
      break
    case 'start':
    case 'finish':
    case 'message-metadata':
      if (chunk.messageMetadata != null) {
        draft.metadata =
          draft.metadata != null
            ? mergeObjects(draft.metadata, chunk.messageMetadata)
            : chunk.messageMetadata
      }
      break
    case 'finish-step':
      break
  }
}

function applyChunk(draft: ChunkDraft, chunk: UIMessageChunk): void {
  switch (chunk.type) {
    case 'text-start':
    case 'text-delta':
    case 'text-end':
      applyTextChunk(draft, chunk)
      break
    case 'reasoning-start':
    case 'reasoning-delta':
    case 'reasoning-end':
      applyReasoningChunk(draft, chunk)
      break
    case 'custom':
    case 'file':
    case 'reasoning-file':
    case 'source-url':
    case 'source-document':
    case 'steering-message':
      applyContentChunk(draft, chunk)
      break
    case 'tool-input-start':
    case 'tool-input-delta':
    case 'tool-input-available':
    case 'tool-input-error':
      applyToolInputChunk(draft, chunk)
      break
    case 'tool-approval-request':
    case 'tool-approval-response':
    case 'tool-output-denied':
    case 'tool-output-available':
    case 'tool-output-error':
      applyToolOutputChunk(draft, chunk)
      break
    case 'start-step':
    case 'reset-step':
    case 'start':
    case 'finish':
    case 'message-metadata':
    case 'finish-step':
      applyStepChunk(draft, chunk)
      break
    case 'error':
    case 'abort':
      break
    default:
      applyDataChunk(draft, chunk)
      break
  }
}

/**
 * Applies streamed chunks to a message without mutating it, the way the AI
 * SDK's UI-message stream processing does.
 *
 * @example
 * const { message } = applyUIMessageChunks(
 *   { id: 'm1', role: 'assistant', parts: [] },
 *   emptyCursor(),
 *   [{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'Hi' }],
 * )
 * // message.parts: [{ type: 'text', text: 'Hi', state: 'streaming' }]
 */
export function applyUIMessageChunks<M extends UIMessage>(
  message: M,
  cursor: StreamCursor,
  chunks: readonly UIMessageChunk[],
): { message: M; cursor: StreamCursor } {
  const draft = openDraft(message, cursor)
  for (const chunk of chunks) applyChunk(draft, chunk)
  const next = withParts<M>(message, draft.parts)
  if (draft.metadata !== undefined || 'metadata' in message) next.metadata = draft.metadata
  const { activeText, activeReasoning, partialToolCalls } = draft
  return { message: next, cursor: { activeText, activeReasoning, partialToolCalls } }
}
