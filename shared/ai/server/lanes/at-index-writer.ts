import type { UIMessage } from 'ai'
import { hasA2Code } from '../../../log/error-brand.ts'
import type { StoredEvent } from '../../../log/event.ts'
import type { ControllerOptions } from '../../controller/controller-options.ts'
import { decisionAfter } from '../../controller/decision-after.ts'
import type { AIEventInput } from '../../events/ai-events.ts'
import type { SessionState } from '../../state/session-state.ts'
import type { Fence, LanePorts } from './lane-ports.ts'

/**
 * How a piece of claimed work (a model step's attempt, a tool call) writes
 * its events after it knows where the log is: each append at the index the
 * work knows the log to be at, without ID guards (on DynamoDB each guard is
 * an item of the transaction, 2 write units). The events' IDs are derived
 * from the attempt, so nobody else writes them, and the expected index does
 * the guards' job: a repeat after an unknown outcome conflicts at its own
 * index, reads back that its events landed, and writes nothing twice.
 *
 * Another writer's event (a user's message, a tool's result, the step's own
 * progress racing its tool call) moves the head and the append conflicts;
 * the writer then reads the state and goes on at the new head while
 * `goesOn` allows it (it throws when the work may not: fenced out). So the
 * events land where an append "at the end" would have put them. With a
 * `fence` the claim decides too, as before; streamed progress has none (one
 * `PutItem`: the log is its fence, see generation-lane.ts).
 */
export interface AtIndexWriter {
  /** The log's index after one of this work's guarded appends. */
  at(index: number): void
  append(
    events: readonly AIEventInput<UIMessage>[],
    options?: { fence?: Fence; progress?: boolean },
  ): Promise<StoredEvent[]>
  /**
   * Appends the work's closing event (a step's end, a tool's result) with
   * the controller's decision after it, at the index of the state it was
   * decided on (controller/decision-after.ts): each try reads the state, so
   * a conflict decides again. Marked `decided: true` when that left the
   * controller nothing to do, so it wakes no admission.
   */
  close(
    event: AIEventInput<UIMessage>,
    options: { fence: Fence; controller: ControllerOptions },
  ): Promise<StoredEvent[]>
}

export function atIndexWriter(
  lane: Pick<LanePorts, 'append' | 'read' | 'state'>,
  sessionId: string,
  options: {
    /** The index the work read the log at (0: it knows nothing yet). */
    from?: number
    /** Throws when the work may not go on at a moved head (its generation ended, say). */
    goesOn: (state: SessionState) => void
  },
): AtIndexWriter {
  let known = options.from ?? 0
  const advance = (stored: readonly StoredEvent[]) => {
    known = Math.max(known, stored.at(-1)?.index ?? known)
  }
  return {
    at(index) {
      known = Math.max(known, index)
    },
    async append(events, { fence, progress } = {}) {
      for (;;) {
        try {
          const stored = await lane.append(sessionId, events, {
            expectedIndex: known,
            guardIds: false,
            ...(fence ? { fence } : {}),
            ...(progress ? { progress } : {}),
          })
          advance(stored)
          return stored
        } catch (error) {
          if (!hasA2Code(error, 'APPEND_CONFLICT')) throw error
        }
        // A try lands at `known + 1` or nowhere: once another writer took
        // that index, an earlier try at a lower one cannot land any more.
        const there = await lane.read(sessionId, { after: known, limit: events.length })
        if (landedThere(there, events)) {
          advance(there)
          return there
        }
        const { state, index } = await lane.state(sessionId)
        options.goesOn(state)
        known = Math.max(known, index, there.at(-1)?.index ?? known)
      }
    },
    async close(event, { fence, controller }) {
      for (;;) {
        const { state, index } = await lane.state(sessionId)
        options.goesOn(state)
        known = Math.max(known, index)
        const decision = decisionAfter(state.ai, event, controller)
        const closing = decision.settled ? markedDecided(event) : event
        try {
          const stored = await lane.append(sessionId, [closing, ...decision.events], {
            expectedIndex: index,
            guardIds: false,
            fence,
          })
          advance(stored)
          return stored
        } catch (error) {
          if (!hasA2Code(error, 'APPEND_CONFLICT')) throw error
        }
        // Landed after all (an unknown outcome), its decision with it in the
        // same batch. (The lane's ports answer a try that conflicts at its own
        // index, and wake its lanes, before this: see invocation-ports.ts.)
        const [there] = await lane.read(sessionId, { after: index, limit: 1 })
        if (there?.id === event.id) {
          advance([there])
          return [there]
        }
      }
    },
  }
}

/** The closing event, saying that the controller's decision came with it. */
function markedDecided(event: AIEventInput<UIMessage>): AIEventInput<UIMessage> {
  return { ...event, payload: { ...event.payload, decided: true } } as AIEventInput<UIMessage>
}

/** Whether the events read at an append's index are its own (their IDs are nobody else's). */
function landedThere(
  there: readonly StoredEvent[],
  events: readonly AIEventInput<UIMessage>[],
): boolean {
  return (
    there.length === events.length &&
    there.every((stored, position) => stored.id === events[position]?.id)
  )
}
