import type { StoredEvent } from '../../log/event.ts'
import { authorOf, type EventAuthor, SUMMARY_LENGTH, summarizeEvent } from './event-summary.ts'

/** One line of a session's timeline. */
export interface TimelineLine {
  /** The event's log index; for folded progress, the first batch's. */
  index: number
  /** For folded progress: the last batch's index (other events may lie between). */
  lastIndex?: number
  /** Epoch milliseconds the (first) event was stored. */
  time: number
  type: string
  author: EventAuthor
  summary: string
  /** For folded progress: how many batches the line stands for. */
  batches?: number
}

const PROGRESS = 'ai.generation.progress'

interface ProgressChunk {
  type?: string
  delta?: string
}

/**
 * A session's events as timeline lines, in log order. Streamed progress
 * (`ai.generation.progress`, one event per batch of chunks) is folded into
 * one line per model step, at its first batch: the streamed text and how
 * many batches and chunks carried it.
 *
 * @example
 * for (const line of timeline(await session.read())) console.log(line.index, line.summary)
 */
export function timeline(events: readonly StoredEvent[]): TimelineLine[] {
  const lines: TimelineLine[] = []
  const progress = new Map<string, { line: TimelineLine; chunks: number; text: string }>()
  for (const event of events) {
    if (event.type !== PROGRESS) {
      lines.push({
        index: event.index,
        time: event.timestamp,
        type: event.type,
        author: authorOf(event),
        summary: summarizeEvent(event),
      })
      continue
    }
    const payload = event.payload as { generationId?: string; chunks?: ProgressChunk[] }
    const generationId = payload.generationId ?? '?'
    const chunks = payload.chunks ?? []
    let step = progress.get(generationId)
    if (step === undefined) {
      step = {
        line: {
          index: event.index,
          time: event.timestamp,
          type: event.type,
          author: authorOf(event),
          summary: '',
          batches: 0,
        },
        chunks: 0,
        text: '',
      }
      progress.set(generationId, step)
      lines.push(step.line)
    }
    step.line.batches = (step.line.batches ?? 0) + 1
    step.line.lastIndex = event.index
    step.chunks += chunks.length
    for (const chunk of chunks) {
      if (chunk.type === 'text-delta' && typeof chunk.delta === 'string') step.text += chunk.delta
    }
    const text = step.text.replace(/\s+/g, ' ').trim()
    const head = `${step.line.batches} ${step.line.batches === 1 ? 'batch' : 'batches'}, ${step.chunks} chunks generation=${generationId}`
    const line = text.length > 0 ? `${head}: ${JSON.stringify(text)}` : head
    step.line.summary =
      line.length > SUMMARY_LENGTH ? `${line.slice(0, SUMMARY_LENGTH - 1)}…` : line
  }
  return lines
}
