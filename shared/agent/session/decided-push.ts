import type { UIMessage } from 'ai'
import { hasA2Code } from '../../log/error-brand.ts'
import { type EventInput, isReservedId, type StoredEvent } from '../../log/event.ts'
import type { EventLog } from '../../log/event-log.ts'
import type { StateSnapshot } from '../../log/reducer.ts'
import type { ControllerOptions } from '../../model/controller/controller-options.ts'
import { controllerRounds } from '../../model/controller/controller-rounds.ts'
import { foldDraft } from '../../model/controller/draft-fold.ts'
import type { AIEventInput } from '../../model/events/ai-events.ts'
import type { AIState } from '../../model/state/ai-state.ts'

/** Tries at deciding where the push is written, before admission is left to decide it. */
const DECIDING_ATTEMPTS = 2

export interface DecidedPush {
  /** The stored batch: the pushed events, then the decision when it was appended with them. */
  stored: StoredEvent[]
  /** The pushed events were stored before: wake admission to recover what they made due. */
  recover: boolean
}

export interface DecidedPushPorts {
  log: EventLog
  /** The session's folded state at the log's end (the agent's state cache). */
  state(sessionId: string): Promise<StateSnapshot<{ ai: AIState }>>
  /** The log's contract check of one event (what an append applies). */
  validate(event: EventInput): EventInput
  controller: ControllerOptions
}

/**
 * A browser's push of commands (a user message, a control), appended with
 * the controller's decision on them in the same batch, when the controller
 * can take that decision without I/O: the same rounds admission takes
 * (`controllerRounds`, deciding commands), over the state at the log's end
 * with the commands folded as a draft, settled (no claim to revoke, no
 * Pause now's calls to settle). Then nothing is left for admission: the
 * batch wakes the lanes the decision concerns (a plain message: the model
 * step), and the turn crosses one queue before the model is called, not two
 * (`wakeUpsFor` wakes no admission for a command whose decision is in its
 * batch). It is the decision admission would append next, at the same
 * index: one controller, decided where the command is written.
 *
 * Anything else is appended as pushed, and admission decides it as before:
 * a push with other events than commands, a command the contract refuses
 * (the plain append answers with its error), rounds that need admission's
 * I/O, and an append that lost its index to other writers twice.
 *
 * The commands keep their ID guards and the decisions have none
 * (`guardIds: n`): a client that sends its push again after losing the
 * answer gets its commands as first stored, whichever way they landed.
 *
 * Returns the whole stored batch, the pushed events first, and whether the
 * pushed events were found stored by another append (`recover`): a client
 * that sent its push again after its first try failed, perhaps after it
 * committed and before it woke anything. The log's own retry of this
 * append after a lost answer is a replay of the whole batch, and wakes what
 * it concerns; but what another append made due may never have been woken,
 * so the caller wakes admission to recover the session (`RECOVER_KEY`),
 * which wakes the lanes that hold work.
 */
export async function appendDecidedPush(
  ports: DecidedPushPorts,
  sessionId: string,
  events: readonly EventInput[],
  /** Only into this life of the session (`agent.session(id, { life })`). */
  { life: named }: { life?: string } = {},
): Promise<DecidedPush> {
  const session = ports.log.session(sessionId)
  const asPushed = async (): Promise<DecidedPush> => ({
    stored: await session.append(events, named === undefined ? {} : { life: named }),
    recover: false,
  })
  const commands = checkedCommands(ports, events)
  if (commands === undefined) return asPushed()
  for (let attempt = 0; attempt < DECIDING_ATTEMPTS; attempt++) {
    const { state, index, life } = await ports.state(sessionId)
    // Another life than the one named: the append as pushed says so (`LIFE_ENDED`).
    if (named !== undefined && life !== named) return asPushed()
    const rounds = controllerRounds(foldDraft(state.ai, commands), ports.controller, {
      decides: true,
    })
    if (rounds.stop !== 'settled' || rounds.events.length === 0) return asPushed()
    try {
      const batch = [...events, ...rounds.events]
      const stored = await session.append(batch, {
        expectedIndex: index,
        ...(life === undefined ? {} : { life }),
        guardIds: events.length,
        // The decisions' IDs are A2's (`a2.` prefixed); the pushed events'
        // were checked against that prefix above.
        author: 'a2',
      })
      // A replay of the commands stored by another append answers with them alone.
      return { stored, recover: stored.length < batch.length }
    } catch (error) {
      // The session started over since the state was read: appended as
      // pushed, into whatever life it is in now.
      if (hasA2Code(error, 'LIFE_ENDED')) break
      // Another writer took the index (a step streaming its progress): the
      // decision is taken again on the news.
      if (!hasA2Code(error, 'APPEND_CONFLICT')) throw error
    }
  }
  return asPushed()
}

/**
 * The push as the controller's commands, each checked as the log will check
 * it; undefined when it is not only commands or one would be refused (the
 * plain append then says why).
 */
function checkedCommands(
  ports: DecidedPushPorts,
  events: readonly EventInput[],
): AIEventInput<UIMessage>[] | undefined {
  const commands: AIEventInput<UIMessage>[] = []
  for (const event of events) {
    if (event.type !== 'ai.control.requested' || typeof event.id !== 'string') return undefined
    if (isReservedId(event.id)) return undefined
    try {
      commands.push(ports.validate(event) as AIEventInput<UIMessage>)
    } catch {
      return undefined
    }
  }
  return commands
}
