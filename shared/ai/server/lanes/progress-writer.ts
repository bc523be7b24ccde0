import type { UIMessage } from 'ai'
import { hasA2Code } from '../../../log/error-brand.ts'
import { FencedOutError } from '../../../log/errors.ts'
import { isCurrentGeneration } from '../../controller/due-work.ts'
import type { AIEventInput } from '../../events/ai-events.ts'
import type { LanePorts } from './lane-ports.ts'

/**
 * How a model step writes its streamed progress: each event at the index
 * the attempt knows the log to be at, without ID guards or a claim check
 * (`guardIds: false`: on DynamoDB one `PutItem` of the event, 1 write unit
 * instead of a fenced transaction's 8). The log is the fence. Another writer's event moves the
 * head and the append conflicts; the writer then reads the state, and goes on
 * at the new head only while its generation is still the current one: once a
 * newer attempt supersedes it or Stop or Pause now end it (each an event in
 * the log), it is fenced out. A progress event that lands before such an
 * event belongs to the attempt it ends, which discards it. A repeat after an
 * unknown outcome finds its own event in the log instead of writing twice.
 */
export interface ProgressWriter {
  /** The log's index after this attempt's latest other append. */
  at(index: number): void
  write(event: AIEventInput<UIMessage>): Promise<void>
}

export function progressWriter(
  lane: Pick<LanePorts, 'append' | 'read' | 'state'>,
  sessionId: string,
  attempt: { generationId: string; claim: string; attempt: number },
): ProgressWriter {
  let known = 0
  return {
    at(index) {
      known = Math.max(known, index)
    },
    async write(event) {
      for (;;) {
        try {
          const [stored] = await lane.append(sessionId, [event], {
            expectedIndex: known,
            guardIds: false,
            progress: true,
          })
          if (stored) known = stored.index
          return
        } catch (error) {
          if (!hasA2Code(error, 'APPEND_CONFLICT')) throw error
        }
        const since = await lane.read(sessionId, { after: known })
        const landed = since.find((stored) => stored.id === event.id)
        const { state, index } = await lane.state(sessionId)
        if (landed) {
          known = Math.max(landed.index, known)
          return
        }
        if (!isCurrentGeneration(state.ai, attempt.generationId)) {
          throw new FencedOutError(sessionId, attempt.claim, attempt.attempt)
        }
        known = Math.max(index, since.at(-1)?.index ?? known)
      }
    },
  }
}
