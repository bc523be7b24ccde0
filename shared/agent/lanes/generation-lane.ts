import type { Claim } from '../../log/event-store.ts'
import type { StateSnapshot } from '../../log/reducer.ts'
import { attemptOpening, stepToServe } from '../../model/controller/generation-attempt.ts'
import { generationClaimKey } from '../../model/ids/claim-keys.ts'
import type { SessionState } from '../../model/state/session-state.ts'
import { DONE, type RunOutcome } from '../../runtime/wake-up.ts'
import { finishReplacedStep } from '../model-step/finish-replaced-step.ts'
import { prepareStep, requestedEvent, wantsMetadata } from '../model-step/prepare-step.ts'
import { stepEnding } from '../model-step/step-ending.ts'
import { stepPrompt } from '../model-step/step-prompt.ts'
import { streamStep } from '../model-step/step-stream.ts'
import { stepWrites } from '../model-step/step-writes.ts'
import { type StepDecision, takeoverRule } from '../model-step/takeover-rule.ts'
import type { GenerateContext } from '../wiring/agent-options.ts'
import { runClaimedWork } from './claimed-work.ts'
import { type Fence, type GenerationPorts, isHeld } from './lane-ports.ts'

/**
 * The generation lane: runs the session's due model step, one at a time.
 * It claims the request (a crashed worker's claim expires and the next
 * attempt takes over, by the takeover rule: takeover-rule.ts) and streams
 * the step's chunks into batched progress events (step-stream.ts). Each
 * tool call is recorded as soon as its input is complete (with its approval
 * request, or a provider's result), so tools start while the model still
 * streams; `ai.generation.completed` ends the step. Where and how each of
 * the step's events lands, fenced by the claim or by the log: step-writes.ts.
 */
export async function runGenerationLane(
  lane: GenerationPorts,
  sessionId: string,
): Promise<RunOutcome> {
  const read = await lane.state(sessionId)
  const due = stepToServe(read.state.ai)
  if (!due || !read.state.ai.active) return DONE
  // Held by another process until its claim expires: when the holder died,
  // the run that looks again then takes over.
  const claim = await lane.claims.take(sessionId, generationClaimKey(due.requestId), read.life)
  if (isHeld(claim)) return claim
  const now = await stateUnderClaim(lane, sessionId, read, claim)
  const decision = takeoverRule({ due, life: read.life, now, claim })
  await carryOut(lane, sessionId, now, claim, decision)
  return DONE
}

/**
 * The state the step is served from: the one read before the claim, unless
 * the claim had a holder before (a takeover, or a retry after a failure).
 * Then the attempt it replaces, should it still be alive (a frozen
 * container whose claim ran out), may have recorded more since that read (a
 * tool call): the takeover decides on the log as it is now, under its
 * claim, where that attempt's fenced writes can no longer land.
 */
async function stateUnderClaim(
  lane: GenerationPorts,
  sessionId: string,
  read: StateSnapshot<SessionState>,
  claim: Claim,
): Promise<StateSnapshot<SessionState>> {
  if (claim.previous === undefined) return read
  return lane.state(sessionId)
}

/** Carries out the takeover rule's decision, under the step's claim. */
async function carryOut(
  lane: GenerationPorts,
  sessionId: string,
  snapshot: StateSnapshot<SessionState>,
  claim: Claim,
  decision: StepDecision,
): Promise<void> {
  const fence = { claim: claim.key, attempt: claim.attempt }
  switch (decision.kind) {
    case 'give-back-claim':
      return lane.claims.release(sessionId, claim)
    case 'finish-replaced-step':
      return void (await runClaimedWork(lane, sessionId, claim, () =>
        finishReplacedStep(lane, sessionId, snapshot, decision.serve, fence),
      ))
    case 'run-step':
    case 'run-step-again':
      return runStep(lane, sessionId, snapshot, claim, fence, decision)
  }
}

/**
 * One attempt at the step, as `generationId` (superseding the attempt it
 * replaces, if any): its resolvers, its opening, its prompt, its model
 * stream, its end.
 */
async function runStep(
  lane: GenerationPorts,
  sessionId: string,
  snapshot: StateSnapshot<SessionState>,
  claim: Claim,
  fence: Fence,
  { serve, generationId }: Extract<StepDecision, { kind: 'run-step' | 'run-step-again' }>,
): Promise<void> {
  const state = snapshot.state.ai
  const writes = stepWrites(lane, sessionId, {
    from: { index: snapshot.index, life: snapshot.life },
    generationId,
    requestId: serve.requestId,
    fence,
  })
  const requested = await requestedEvent(lane, sessionId, state, serve)
  await runClaimedWork(lane, sessionId, claim, async (signal) => {
    const step = await prepareStep(lane, snapshot, serve, requested)
    await writes.start(
      attemptOpening(state, {
        sessionId,
        serve,
        generationId,
        attempt: claim.attempt,
        ...(step.model ? { modelId: step.model.modelId } : {}),
        version: lane.config.version,
        requestMetadata: wantsMetadata(step, state),
      }),
    )
    if ('failure' in step) return void (await writes.fail(step.failure))
    const prompt = await stepPrompt(lane, step, state, generationId, signal, writes.append)
    if (prompt === 'aborted') return
    if ('failed' in prompt) {
      // The previous context stays; retry() runs the step (and the summary) again.
      return void (await writes.fail(prompt.failed))
    }
    const context: GenerateContext = {
      ...step.resolverContext,
      messages: prompt.messages,
      model: step.model.model,
      instructions: step.instructions,
      modelMessages: prompt.modelMessages,
      generationId,
      tools: step.definitions,
      signal,
      settings: lane.config.generation,
      telemetry: lane.invocation.telemetry,
    }
    // From the step being due to its first content: what a user waits for,
    // queueing and cold starts included. A later attempt's figure would be
    // the recovery's, not the model's, so only the first attempt records it.
    const firstContent =
      claim.attempt === 1
        ? () =>
            lane.invocation.metrics.record(
              'TimeToFirstToken',
              lane.config.now() - requested.timestamp,
            )
        : () => {}
    const streamed = await streamStep(lane, context, step.model, state, writes, firstContent)
    if (signal.aborted) return
    const ending = stepEnding(streamed, {
      modelId: step.model.modelId,
      estimatedInputTokens: prompt.estimatedInputTokens,
    })
    if (ending.kind === 'fail') return void (await writes.fail(ending.error))
    if (ending.kind === 'finish-on-recorded-calls') {
      lane.config.logger.warn(
        `a2: generation ${generationId} of session ${sessionId} failed after recording tool calls (${ending.error}); its step ends on those calls`,
      )
    }
    await writes.finish(ending.outcome)
  })
}
