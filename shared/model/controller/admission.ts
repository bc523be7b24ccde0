import type { UIMessage } from 'ai'
import type { AIEventInput } from '../events/ai-events.ts'
import { derivedId, responseIdFor, turnIdFor } from '../ids/ids.ts'
import type { AIState, InboxItem } from '../state/ai-state.ts'

// Which inputs leave the inbox when admission is open and no turn is active.
// Queue order decides: the run at the front that steers the same turn enters
// as one new turn (earlier messages as context, the last generating); a
// passive input enters alone, without a turn; any other input starts a turn.

export interface Admission<M extends UIMessage> {
  /** The inputs admitted, in order; the last one generates unless `passive`. */
  inputs: InboxItem<M>[]
  passive: boolean
}

export function nextAdmission<M extends UIMessage>(state: AIState<M>): Admission<M> | null {
  if (state.active !== null || state.inbox.paused || state.closed) return null
  const items = state.inbox.items
  const first = items[0]
  if (first === undefined) return null
  if (first.afterStepOf !== null) {
    const run: InboxItem<M>[] = []
    for (const item of items) {
      if (item.afterStepOf !== first.afterStepOf) break
      run.push(item)
    }
    return { inputs: run, passive: false }
  }
  return { inputs: [first], passive: !first.generate }
}

/**
 * The events that admit inputs. `commandId` marks the committed change as the
 * command's own (an idle send admitted at once) instead of the controller's.
 */
export function admissionEvents<M extends UIMessage>(
  inputs: readonly { id: string; commandId: string }[],
  passive: boolean,
  commandId?: string,
): AIEventInput<M>[] {
  const last = inputs[inputs.length - 1]
  if (last === undefined) return []
  const turnId = passive ? null : turnIdFor(last.id)
  const events: AIEventInput<M>[] = inputs.map((input) => ({
    id: derivedId('created', input.id),
    type: 'ai.message.created',
    payload: { inputId: input.id, commandId: input.commandId, turnId },
  }))
  if (turnId !== null) {
    events.push({
      id: commandId === undefined ? derivedId('start', last.id) : derivedId('committed', commandId),
      type: 'ai.control.committed',
      payload: {
        ...(commandId === undefined ? {} : { commandId }),
        changes: [
          {
            op: 'turn.start',
            turnId,
            inputId: last.id,
            contextInputIds: inputs.slice(0, -1).map((input) => input.id),
            responseMessageId: responseIdFor(last.id),
          },
        ],
      },
    })
  } else if (commandId !== undefined) {
    events.push({
      id: derivedId('committed', commandId),
      type: 'ai.control.committed',
      payload: { commandId, changes: [] },
    })
  }
  return events
}
