import type { UIMessage } from 'ai'
import { hasA2Code } from '../../log/error-brand.ts'
import { LifeEndedError } from '../../log/errors.ts'
import type { StoredEvent } from '../../log/event.ts'
import type { ControllerOptions } from '../../model/controller/controller-options.ts'
import { decisionAfter } from '../../model/controller/decision-after.ts'
import type { AIEventInput } from '../../model/events/ai-events.ts'
import type { SessionState } from '../../model/state/session-state.ts'
import type { Fence, LanePorts } from './lane-ports.ts'

/**
 * How a piece of claimed work (a model step's attempt, a tool call) writes
 * its events after it knows where the log is: each append at the index the
 * work knows the log to be at, in the life it read, without ID guards (on
 * DynamoDB each guard is an item of the transaction, 2 write units). The
 * events' IDs are derived from the attempt, so nobody else writes them, and
 * the expected index does the guards' job: a repeat after an unknown
 * outcome finds its own events there, and the store answers it as a replay.
 *
 * Another writer's event (a user's message, a tool's result, the step's own
 * progress racing its tool call) moves the head and the append conflicts;
 * the writer then reads the state and goes on at the new head while
 * `goesOn` allows it (it throws when the work may not: fenced out). So the
 * events land where an append "at the end" would have put them. With a
 * `fence` the claim decides too, as before; streamed progress has none (one
 * `PutItem`: the log is its fence, see model-step/step-writes.ts). Once the life
 * the work read has ended (an erase), every append is `LIFE_ENDED`: the
 * work is over.
 */
export interface AtIndexWriter {
  /** The log's index (and life) after one of this work's appends at the end. */
  at(index: number, life?: string): void
  append(
    events: readonly AIEventInput<UIMessage>[],
    options?: { fence?: Fence; progress?: boolean },
  ): Promise<StoredEvent[]>
  /**
   * Appends the work's last event (a step's end, a tool's result) with
   * the controller's decision after it, at the index of the state it was
   * decided on (controller/decision-after.ts): each try reads the state, so
   * a conflict decides again. Marked `decided: true` when that left the
   * controller nothing to do, so it wakes no admission.
   */
  appendLast(
    event: AIEventInput<UIMessage>,
    options: { fence: Fence; controller: ControllerOptions },
  ): Promise<StoredEvent[]>
}

export function atIndexWriter(
  lane: Pick<LanePorts, 'append' | 'state'>,
  sessionId: string,
  options: {
    /** Where the work read the log: its index (0: it knows nothing yet) and life. */
    from: { index: number; life?: string | undefined }
    /** Throws when the work may not go on at a moved head (its generation ended, say). */
    goesOn: (state: SessionState) => void
  },
): AtIndexWriter {
  // The work's life: the one it read, or (from an empty log) the one its first events started.
  let { life } = options.from
  let known = options.from.index
  const advance = (stored: readonly StoredEvent[]) => {
    known = Math.max(known, stored.at(-1)?.index ?? known)
    life ??= stored[0]?.life
  }
  /** The state after another writer's append: the work goes on there, if it may. */
  const moveOn = async (): Promise<{ state: SessionState; index: number }> => {
    const read = await lane.state(sessionId)
    if (read.life !== life) throw new LifeEndedError(sessionId, life ?? '', read.life)
    options.goesOn(read.state)
    known = Math.max(known, read.index)
    return read
  }
  return {
    at(index, atLife) {
      known = Math.max(known, index)
      life ??= atLife
    },
    async append(events, { fence, progress } = {}) {
      for (;;) {
        try {
          const stored = await lane.append(sessionId, events, {
            at: known,
            life,
            ...(fence ? { fence } : {}),
            ...(progress ? { progress } : {}),
          })
          advance(stored)
          return stored
        } catch (error) {
          if (!hasA2Code(error, 'APPEND_CONFLICT')) throw error
        }
        await moveOn()
      }
    },
    async appendLast(event, { fence, controller }) {
      for (;;) {
        const { state, index } = await moveOn()
        const decision = decisionAfter(state.ai, event, controller)
        const closing = decision.settled ? markedDecided(event) : event
        try {
          const stored = await lane.append(sessionId, [closing, ...decision.events], {
            at: index,
            life,
            fence,
          })
          advance(stored)
          return stored
        } catch (error) {
          if (!hasA2Code(error, 'APPEND_CONFLICT')) throw error
        }
      }
    },
  }
}

/** The closing event, saying that the controller's decision came with it. */
function markedDecided(event: AIEventInput<UIMessage>): AIEventInput<UIMessage> {
  return { ...event, payload: { ...event.payload, decided: true } } as AIEventInput<UIMessage>
}
