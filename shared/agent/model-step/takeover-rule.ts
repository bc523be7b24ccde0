import type { UIMessage } from 'ai'
import type { Claim } from '../../log/event-store.ts'
import type { StateSnapshot } from '../../log/reducer.ts'
import {
  attemptGenerationId,
  type StepToServe,
  stepToServe,
} from '../../model/controller/generation-attempt.ts'
import type { AIState } from '../../model/state/ai-state.ts'
import type { SessionState } from '../../model/state/session-state.ts'

/** A step another attempt started and did not finish: the attempt it replaces is `replaces`. */
export type ReplacedStep = StepToServe & { replaces: string }

/**
 * What a generation invocation does with the step it claimed (the takeover
 * rule's answer, carried out by the generation lane):
 * - `give-back-claim`: the step is no longer the one to serve (done, or of
 *   an ended life, since the invocation first read the log): nothing runs.
 * - `run-step`: no attempt at the step is running (its first, or one after
 *   an attempt that failed): run it as `generationId`.
 * - `run-step-again`: the attempt that started it vanished before it
 *   recorded a tool call: supersede it and run the step again, as
 *   `generationId`, asking the model again.
 * - `finish-replaced-step`: that attempt vanished after it recorded a call
 *   of a tool A2 runs: end its step there, on those calls; no model call.
 */
export type StepDecision =
  | { kind: 'give-back-claim' }
  | { kind: 'run-step'; serve: StepToServe; generationId: string }
  | { kind: 'run-step-again'; serve: ReplacedStep; generationId: string }
  | { kind: 'finish-replaced-step'; serve: ReplacedStep }

/** What the log says about the step, once the invocation holds the step's claim. */
export interface ClaimedStep {
  /** The step as the invocation found it before it took the claim. */
  due: StepToServe
  /** The life of the session it was found in. */
  life: string | undefined
  /**
   * The log now, under the claim: the attempt a takeover replaces may have
   * written after the first read, until the claim fenced it out (see
   * generation-lane.ts, `stateUnderClaim`).
   */
  now: StateSnapshot<SessionState>
  claim: Pick<Claim, 'attempt'>
}

/**
 * The takeover rule. Pure: it decides on what the log says, and the lane
 * carries the decision out. A step another attempt started and did not
 * finish (its worker crashed, or froze until its claim ran out) is run again
 * unless that attempt recorded a call of a tool A2 runs: that call is a
 * durable fact. Its tool may be running or done in another process (on AWS
 * the tools lane has its own functions), and a step run again would not see
 * it: the model would ask again, and the tool would run twice, under a new
 * call's idempotency key. So the takeover finishes the step with the calls
 * it recorded (its text so far stays), and the next step sees them with
 * their results. A provider-executed call is the provider's: it does not
 * count.
 */
export function takeoverRule({ due, life, now, claim }: ClaimedStep): StepDecision {
  const serve = stepToServe(now.state.ai)
  if (
    serve === null ||
    now.life !== life ||
    !now.state.ai.active ||
    serve.requestId !== due.requestId
  ) {
    return { kind: 'give-back-claim' }
  }
  const generationId = attemptGenerationId(serve.requestId, claim.attempt)
  if (!isReplacing(serve)) return { kind: 'run-step', serve, generationId }
  return recordedToolCalls(now.state.ai, serve.replaces)
    ? { kind: 'finish-replaced-step', serve }
    : { kind: 'run-step-again', serve, generationId }
}

const isReplacing = (serve: StepToServe): serve is ReplacedStep => serve.replaces !== undefined

/** Whether the attempt recorded a call of a tool A2 runs (not a provider-executed one). */
function recordedToolCalls<M extends UIMessage>(state: AIState<M>, generationId: string): boolean {
  return state.tools.some(
    (tool) => tool.generationId === generationId && tool.providerExecuted !== true,
  )
}
