import type { UIMessage } from 'ai'
import type { AIEventInput } from '../events/ai-events.ts'
import type { AIState } from '../state/ai-state.ts'
import type { ControllerOptions } from './controller-options.ts'
import { controllerRound } from './controller-round.ts'
import { foldDraft } from './draft-fold.ts'
import { pausingClaimKeys } from './pause-settlement.ts'

/** Rounds one run takes at most; a controller that keeps finding work is a bug. */
const MAX_ROUNDS = 50

/**
 * Why the controller's rounds stopped:
 * - `settled`: nothing is due; the controller has nothing to do until new
 *   events come, so what the rounds appended needs no other look.
 * - `command`: a command waits to be decided, and the caller does not decide
 *   commands (only admission does, with their receipts).
 * - `revoke`: the next round ends running work (Stop, an interruption, a
 *   hand-off), whose claims must be revoked before it is appended, and the
 *   caller cannot revoke (only admission can).
 * - `pausing`: Pause now's running calls wait to be settled, which needs
 *   their claims read (admission's I/O).
 * - `unsettled`: the rounds kept finding work for `MAX_ROUNDS` rounds.
 */
type RoundsStop = 'settled' | 'command' | 'revoke' | 'pausing' | 'unsettled'

/** What a caller of the rounds can do beside folding: the I/O it has. */
export interface RoundsCaller {
  /** Decides commands, with their receipts (admission). Otherwise the rounds stop at one. */
  decides?: boolean
  /** Revokes the claims of the work a round ends, before appending it (admission). */
  revokes?: boolean
  /**
   * Goes on past Pause now's calls waiting to be settled, their claims
   * unread: what a preview does, where nothing is running to ask.
   */
  passesPausing?: boolean
}

export interface Rounds<M extends UIMessage = UIMessage> {
  /** Every round's events, in order: one batch, at the index the state was read at. */
  events: AIEventInput<M>[]
  /** The claims of running work those events end: revoke them before appending. */
  revoke: string[]
  /** The state the events lead to, folded as a draft. */
  state: AIState<M>
  stop: RoundsStop
}

/**
 * The controller's rounds over a state, as far as its caller can take them:
 * each round is `controllerRound` (a command's decision, or what the durable
 * facts make due), folded as a draft so the next round sees it, until
 * nothing is due or the next round needs I/O the caller does not have. Every
 * caller runs these rounds: admission (it decides, revokes and reads Pause
 * now's claims itself), a worker deciding after its step's end or a tool's
 * result (`decisionAfter`: no I/O), a client's preview (`optimisticAIState`),
 * and the tests' sessions; and the wake-up routing reads where they stop
 * (a closing event marked `decided` when they settled).
 *
 * @example
 * const { events, revoke, stop } = controllerRounds(state, options, { decides: true, revokes: true })
 * for (const key of revoke) await claims.revoke(sessionId, key)
 * await session.append(events, { expectedIndex: index })
 */
export function controllerRounds<M extends UIMessage>(
  state: AIState<M>,
  options: ControllerOptions = {},
  caller: RoundsCaller = {},
): Rounds<M> {
  let current = state
  const events: AIEventInput<M>[] = []
  const revoke: string[] = []
  const stop = (why: RoundsStop): Rounds<M> => ({ events, revoke, state: current, stop: why })
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (!caller.decides && Object.keys(current.requests).length > 0) return stop('command')
    if (
      !caller.passesPausing &&
      Object.keys(current.requests).length === 0 &&
      pausingClaimKeys(current).length > 0
    )
      return stop('pausing')
    const next = controllerRound(current, options)
    if (next.events.length === 0) return stop('settled')
    if (next.revoke.length > 0) {
      if (!caller.revokes) return stop('revoke')
      revoke.push(...next.revoke)
    }
    events.push(...next.events)
    current = foldDraft(current, next.events)
  }
  return stop('unsettled')
}

/**
 * Events that cannot leave the controller a decision to make, so they wake
 * no admission (test/shared/agent/admission-wakes.test.ts proves it over
 * random sessions with `controllerRounds`: every batch after which the
 * rounds do not settle wakes it):
 * - what only the controller writes (its receipts and commits, the messages
 *   it opens and closes, the requests it makes): its rounds run until they
 *   settle, so its own append never needs another look;
 * - a step's opening, its tool calls (recorded mid-stream, before the step
 *   ends) and its approval requests: the controller waits on the step's
 *   end, the calls' results and the answer, which wake it;
 * - streamed chunks, a tool's durable steps, dead letters.
 */
const LEAVE_NO_DECISION = new Set([
  'ai.control.decided',
  'ai.control.committed',
  'ai.message.created',
  'ai.message.completed',
  'ai.generation.requested',
  'ai.generation.started',
  'ai.tool.called',
  'ai.approval.requested',
  'ai.generation.progress',
  'ai.handler.dead-lettered',
  'ai.step.completed',
])

/**
 * Whether an event, once stored, may leave the controller a decision to
 * make: any but those above, and but a step's end or a tool's result whose
 * writer ran the rounds after it and found them settled (`decided: true`,
 * `decisionAfter`).
 */
export function mayLeaveADecision(event: { type: string; payload: unknown }): boolean {
  if (LEAVE_NO_DECISION.has(event.type)) return false
  const decided =
    (event.type === 'ai.generation.completed' || event.type === 'ai.tool.result') &&
    (event.payload as { decided?: unknown } | null)?.decided === true
  return !decided
}
