import type { UIMessage, UIMessageChunk } from 'ai'
import { applyUIMessageChunks, emptyCursor, type StreamCursor } from './apply-chunks.ts'
import { withParts } from './message-types.ts'

// The active response's bookkeeping. Every change to the response message
// goes through `applyToResponse`, which also journals the chunks with the log
// index that carried them, so Stop can rebuild the message exactly as the
// client saw it at its frontier. The journal lives only while the turn runs.

/** Chunks applied by the event at `index`, or the parts cut back to `truncateTo`. */
type JournalEntry =
  | { index: number; chunks: UIMessageChunk[] }
  | { index: number; truncateTo: number }

// Journal blocks: appending copies one block of at most this many entries and
// the list of blocks, so a long response costs O(entries / 64) per event, not
// O(entries).
const JOURNAL_BLOCK = 64

export interface ActiveResponse {
  turnId: string
  messageId: string
  /** Index of the response in `state.messages`; -1 until its first chunk. */
  position: number
  cursor: StreamCursor
  /** Parts before this index belong to completed steps. */
  stepStart: number
  /** The last attempt ended without success: its parts leave when the next one starts. */
  uncommittedStep: boolean
  journal: JournalEntry[][]
}

export function newActiveResponse(turnId: string, messageId: string): ActiveResponse {
  return {
    turnId,
    messageId,
    position: -1,
    cursor: emptyCursor(),
    stepStart: 0,
    uncommittedStep: false,
    journal: [],
  }
}

function appendJournal(journal: JournalEntry[][], entry: JournalEntry): JournalEntry[][] {
  const last = journal[journal.length - 1]
  if (last === undefined || last.length >= JOURNAL_BLOCK) return [...journal, [entry]]
  const next = journal.slice()
  next[next.length - 1] = [...last, entry]
  return next
}

export function emptyResponse<M extends UIMessage>(messageId: string): M {
  return withParts<M>({ id: messageId, role: 'assistant' }, [])
}

/** Applies chunks to the response message and journals them. */
export function applyToResponse<M extends UIMessage>(
  response: ActiveResponse,
  message: M,
  index: number,
  chunks: readonly UIMessageChunk[],
): { response: ActiveResponse; message: M } {
  const applied = applyUIMessageChunks(message, response.cursor, chunks)
  return {
    message: applied.message,
    response: {
      ...response,
      cursor: applied.cursor,
      journal: appendJournal(response.journal, { index, chunks: chunks as UIMessageChunk[] }),
    },
  }
}

/** Cuts the response back to `length` parts (an unsuccessful step leaves). */
export function truncateResponse<M extends UIMessage>(
  response: ActiveResponse,
  message: M,
  index: number,
  length: number,
): { response: ActiveResponse; message: M } {
  return {
    message: { ...message, parts: message.parts.slice(0, length) },
    response: {
      ...response,
      cursor: emptyCursor(),
      journal: appendJournal(response.journal, { index, truncateTo: length }),
    },
  }
}

/** The response message as it was after the log event at `frontier`. */
export function responseAt<M extends UIMessage>(response: ActiveResponse, frontier: number): M {
  let message = emptyResponse<M>(response.messageId)
  let cursor = emptyCursor()
  for (const block of response.journal) {
    for (const entry of block) {
      if (entry.index > frontier) return message
      if ('truncateTo' in entry) {
        message = { ...message, parts: message.parts.slice(0, entry.truncateTo) }
        cursor = emptyCursor()
      } else {
        const applied = applyUIMessageChunks(message, cursor, entry.chunks)
        message = applied.message
        cursor = applied.cursor
      }
    }
  }
  return message
}

type Part = { type: string; state?: string; [key: string]: unknown }

const STOPPED_TOOL_ERROR = 'The turn was stopped before this tool call finished.'

/**
 * Closes a stopped response: completed tools stay, accepted tools still
 * awaiting completion become `output-error`, unanswered approvals are denied,
 * streaming tool drafts leave, and streaming text is marked done.
 */
export function closeStoppedResponse<M extends UIMessage>(message: M): M {
  const parts: Part[] = []
  for (const part of message.parts as readonly Part[]) {
    const isTool = part.type.startsWith('tool-') || part.type === 'dynamic-tool'
    if (isTool) {
      const approval = part.approval as { id: string; approved?: boolean } | undefined
      switch (part.state) {
        case 'input-streaming':
          continue
        case 'input-available':
          parts.push({ ...part, state: 'output-error', errorText: STOPPED_TOOL_ERROR })
          continue
        case 'approval-requested':
          parts.push({
            ...part,
            state: 'output-denied',
            approval: { ...approval, approved: false, reason: 'The turn was stopped.' },
          })
          continue
        case 'approval-responded':
          parts.push(
            approval?.approved
              ? { ...part, state: 'output-error', errorText: STOPPED_TOOL_ERROR }
              : { ...part, state: 'output-denied' },
          )
          continue
        case 'output-available':
          parts.push(
            part.preliminary
              ? { ...part, state: 'output-error', errorText: STOPPED_TOOL_ERROR, output: undefined }
              : part,
          )
          continue
        default:
          parts.push(part)
          continue
      }
    }
    if ((part.type === 'text' || part.type === 'reasoning') && part.state === 'streaming') {
      parts.push({ ...part, state: 'done' })
      continue
    }
    parts.push(part)
  }
  return withParts<M>(message, parts)
}
