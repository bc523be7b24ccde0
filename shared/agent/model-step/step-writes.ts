import type { UIMessage, UIMessageChunk } from 'ai'
import { isContentRefusal } from '../../log/content-refusal.ts'
import { FencedOutError } from '../../log/errors.ts'
import { isCurrentGeneration } from '../../model/controller/due-work.ts'
import { generationCompleted, type StepOutcome } from '../../model/controller/generation-attempt.ts'
import type { AIEventInput } from '../../model/events/ai-events.ts'
import { derivedId } from '../../model/ids/ids.ts'
import type { SessionState } from '../../model/state/session-state.ts'
import { atIndexWriter } from '../lanes/at-index-writer.ts'
import type { Fence, GenerationPorts } from '../lanes/lane-ports.ts'
import { clipped, unstorable } from './failure-reason.ts'

export type Append = (events: AIEventInput<UIMessage>[]) => Promise<unknown>

/**
 * The events one attempt at a model step appends, each where and how it
 * may land. Every write but streamed progress is fenced by the claim, so a
 * superseded attempt's late writes are refused; progress is fenced by the
 * log (see at-index-writer.ts): once a newer attempt, Stop or Pause now is
 * in it, the attempt's next append conflicts and finds its generation ended.
 */
export interface StepWrites {
  /**
   * The attempt's opening (see `attemptOpening`), fenced and guarded, at the
   * log's end: before it lands the log does not know this attempt, so a
   * repeat could not tell its own events from another's. The later writes
   * go at the index the attempt knows, without ID guards (their IDs are
   * derived from the attempt).
   */
  start(events: AIEventInput<UIMessage>[]): Promise<void>
  /** The step's own facts (a compaction's events), fenced. */
  append: Append
  /** A batch of streamed chunks, unfenced (one `PutItem`: the log is its fence). */
  progress(chunks: UIMessageChunk[]): Promise<void>
  /**
   * Facts of the stream (a tool call, an approval request) after the chunks
   * still waiting, in one fenced append: the call a fact is about is
   * recorded before it.
   */
  appendFacts(pending: UIMessageChunk[], facts: AIEventInput<UIMessage>[]): Promise<void>
  /**
   * Ends the step with its outcome. A step the log refuses to record as it
   * ended (its finish reason or usage unstorable) fails with the reason
   * instead: recording it again would fail again.
   */
  finish(outcome: StepOutcome): Promise<void>
  /** Ends the step as failed, with the reason (clipped to what the log keeps). */
  fail(error: string): Promise<void>
}

export function stepWrites(
  lane: GenerationPorts,
  sessionId: string,
  step: {
    /** Where the attempt read the log: the state it serves the step from. */
    from: { index: number; life?: string | undefined }
    generationId: string
    requestId: string
    fence: Fence
  },
): StepWrites {
  const { generationId, fence } = step
  const { life } = step.from
  const writer = atIndexWriter(lane, sessionId, {
    from: step.from,
    goesOn: whileCurrent(sessionId, generationId, fence),
  })
  const append: Append = (events) => writer.append(events, { fence })
  // The step's end goes with the controller's decision after it (the next
  // step, the response's end), so admission need not wake for it: that is
  // the at-index writer's `appendLast`, its work's last event.
  const appendEnd = async (outcome: StepOutcome) =>
    void (await writer.appendLast(generationCompleted(generationId, step.requestId, outcome), {
      fence,
      controller: lane.config.controller,
    }))
  // The log says why for clients; the logger says it for operators.
  const fail = (error: string) => {
    lane.config.logger.error(
      `a2: generation ${generationId} of session ${sessionId} failed: ${error}`,
    )
    return appendEnd({ outcome: 'failed', error: clipped(error) })
  }
  const finish = async (outcome: StepOutcome) => {
    try {
      return await appendEnd(outcome)
    } catch (error) {
      if (!isContentRefusal(error)) throw error
      return fail(unstorable(error))
    }
  }
  let sequence = 0
  const progressEvent = (chunks: UIMessageChunk[]): AIEventInput<UIMessage> => ({
    id: derivedId('progress', generationId, ++sequence),
    type: 'ai.generation.progress',
    payload: { generationId, chunks },
  })
  return {
    async start(events) {
      const stored = await lane.append(sessionId, events, { at: 'end', life, fence })
      const last = stored.at(-1)
      if (last) writer.at(last.index, last.life)
    },
    append,
    progress: async (chunks) =>
      void (await writer.append([progressEvent(chunks)], { progress: true })),
    appendFacts: async (pending, facts) =>
      void (await append([...(pending.length > 0 ? [progressEvent(pending)] : []), ...facts])),
    finish,
    fail,
  }
}

/**
 * A step's writes go on at a moved head only while its generation is the
 * running one: Stop, Pause now or a newer attempt ends it (each an event in
 * the log), and the writer is fenced out.
 */
export function whileCurrent(
  sessionId: string,
  generationId: string,
  fence: Fence,
): (state: SessionState) => void {
  return (state) => {
    if (!isCurrentGeneration(state.ai, generationId)) {
      throw new FencedOutError(sessionId, fence.claim, fence.attempt)
    }
  }
}
