import type { UIMessage } from 'ai'
import type { AIEventInput } from '../events/ai-events.ts'
import type { AIState } from '../state/ai-state.ts'
import type { ControllerOptions } from './controller-options.ts'
import { controllerRounds } from './controller-rounds.ts'
import { foldDraft } from './draft-fold.ts'

/** What the controller decides right after a worker's closing event. */
export interface DecisionAfter<M extends UIMessage = UIMessage> {
  /** The rounds' events, to append after the closing event in the same batch. */
  events: AIEventInput<M>[]
  /**
   * Whether the controller has nothing left to do at the end of the batch:
   * then admission need not wake for the closing event (it says
   * `decided: true`). Otherwise the rounds stopped where admission's own
   * I/O is needed (a claim to revoke, Pause now's claims to read, a
   * command), and the closing event wakes it as always.
   */
  settled: boolean
}

/**
 * The controller's rounds after a step's end or a tool's result, decided by
 * the worker that writes it, at the same index: the state is the log up to
 * the index the worker appends at, so these are the events admission would
 * append next, woken by that event (the same pure rounds over the same
 * state; every ID derives from the state). Only rounds that need no I/O:
 * none with a command to decide (admission decides those, with their
 * receipts), none that ends running work (its claim must be revoked first),
 * none while Pause now's calls wait to be settled (their claims must be
 * read). That saves admission's invocation, its reads and its transaction
 * for most of a turn's decisions.
 */
export function decisionAfter<M extends UIMessage>(
  state: AIState<M>,
  closing: AIEventInput<M>,
  options: ControllerOptions = {},
): DecisionAfter<M> {
  // The controller's rounds, as far as a worker without admission's I/O takes them.
  const { events, stop } = controllerRounds(foldDraft(state, [closing]), options)
  return { events, settled: stop === 'settled' }
}
