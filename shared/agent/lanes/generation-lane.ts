import type { UIMessage, UIMessageChunk } from 'ai'
import { isContentRefusal } from '../../log/content-refusal.ts'
import { FencedOutError } from '../../log/errors.ts'
import type { StoredEvent } from '../../log/event.ts'
import type { Claim } from '../../log/event-store.ts'
import { messageOf } from '../../log/message-of.ts'
import type { StateSnapshot } from '../../log/reducer.ts'
import { isCurrentGeneration } from '../../model/controller/due-work.ts'
import {
  attemptGenerationId,
  attemptOpening,
  closesReplacedStep,
  generationCompleted,
  type StepOutcome,
  type StepToServe,
  stepToServe,
} from '../../model/controller/generation-attempt.ts'
import { stepFacts } from '../../model/controller/step-facts.ts'
import type { AIEventInput, AIEventPayload } from '../../model/events/ai-events.ts'
import { generationClaimKey } from '../../model/ids/claim-keys.ts'
import { derivedId } from '../../model/ids/ids.ts'
import type { AIState } from '../../model/state/ai-state.ts'
import type { SessionState } from '../../model/state/session-state.ts'
import { DONE, type RunOutcome } from '../../runtime/wake-up.ts'
import { compactIfDue } from '../model-step/compact-if-due.ts'
import { estimateTokens, type StepCompaction } from '../model-step/compaction.ts'
import { normalizedChunk, normalizedUsage } from '../model-step/compatibility-mode.ts'
import { harnessApprovals } from '../model-step/harness-approvals.ts'
import { progressBatcher, showsContent } from '../model-step/progress-batcher.ts'
import { modelMessagesOf, promptMessages, toolDefinitions } from '../model-step/prompt.ts'
import { type ResolvedModel, resolveModel } from '../model-step/resolve-model.ts'
import { validatedToolInput } from '../model-step/validated-tool-input.ts'
import { warnLeftOut, wellFormedPrompt } from '../model-step/well-formed-prompt.ts'
import type { GenerateContext, ResolverContext } from '../wiring/agent-options.ts'
import { type AtIndexWriter, atIndexWriter } from './at-index-writer.ts'
import { runClaimedWork } from './claimed-work.ts'
import { type Fence, type GenerationPorts, isHeld } from './lane-ports.ts'
import { storedEventAt } from './stored-event.ts'

type Append = (events: AIEventInput<UIMessage>[]) => Promise<unknown>
type RequestedEvent = StoredEvent<
  'ai.generation.requested',
  AIEventPayload<'ai.generation.requested'>
>

/**
 * The generation lane: runs the session's due model step, one at a time.
 * It claims the request (a crashed worker's claim expires and the next
 * attempt supersedes it) and streams the step's chunks into batched progress
 * events. Each tool call is recorded as soon as its input is complete (with
 * its approval request, or a provider's result), so tools start while the
 * model still streams; `ai.generation.completed` closes the step. Every
 * write but streamed progress is fenced by the claim, so a superseded
 * attempt's late writes are refused; progress is fenced by the log (see
 * at-index-writer.ts): once a newer attempt, Stop or Pause now is in it, the
 * attempt's next append conflicts and finds its generation ended.
 */
export async function runGenerationLane(
  lane: GenerationPorts,
  sessionId: string,
): Promise<RunOutcome> {
  const read = await lane.state(sessionId)
  const due = stepToServe(read.state.ai)
  if (!due || !read.state.ai.active) return DONE
  const claimKey = generationClaimKey(due.requestId)
  // Held by another process until its claim expires: when the holder died,
  // the run that looks again then takes over.
  const claim = await lane.claims.take(sessionId, claimKey, read.life)
  if (isHeld(claim)) return claim
  const snapshot = await underClaim(lane, sessionId, read, due, claim)
  if (snapshot === undefined) {
    await lane.claims.release(sessionId, claim)
    return DONE
  }
  const state = snapshot.state.ai
  const serve = stepToServe(state) as StepToServe
  const { life } = snapshot
  const generationId = attemptGenerationId(serve.requestId, claim.attempt)
  const fence = { claim: claim.key, attempt: claim.attempt }
  const writer = atIndexWriter(lane, sessionId, {
    from: { index: snapshot.index, life },
    goesOn: whileCurrent(sessionId, generationId, fence),
  })
  // The opening is fenced and guarded, at the log's end: before it lands the
  // log does not know this attempt, so a repeat could not tell its own events
  // from another's. The step's later events go at the index the attempt
  // knows, fenced but without ID guards (their IDs are derived from the
  // attempt), and its streamed progress without the fence too.
  const open = async (events: AIEventInput<UIMessage>[]) => {
    const stored = await lane.append(sessionId, events, { at: 'end', life, fence })
    const last = stored.at(-1)
    if (last) writer.at(last.index, last.life)
  }
  const append: Append = (events) => writer.append(events, { fence })
  // The step's end goes with the controller's decision after it (the next
  // step, the response's end), so admission need not wake for it.
  const end = (outcome: StepOutcome) =>
    writer.close(generationCompleted(generationId, serve.requestId, outcome), {
      fence,
      controller: lane.config.controller,
    })
  // The log says why for clients; the logger says it for operators.
  const fail = (error: string) => {
    lane.config.logger.error(
      `a2: generation ${generationId} of session ${sessionId} failed: ${error}`,
    )
    return end({ outcome: 'failed', error: clipped(error) })
  }
  // A step the log refuses to record as it ended (its finish reason or usage
  // unstorable) fails with the reason: recording it again would fail again.
  const close = async (outcome: StepOutcome) => {
    try {
      return await end(outcome)
    } catch (error) {
      if (!isContentRefusal(error)) throw error
      return fail(unstorable(error))
    }
  }
  if (closesReplacedStep(state, serve)) {
    await runClaimedWork(lane, sessionId, claim, () =>
      closeReplacedStep(lane, sessionId, snapshot, serve, fence),
    )
    return DONE
  }
  const requested = await requestedEvent(lane, sessionId, state, serve)
  await runClaimedWork(lane, sessionId, claim, async (signal) => {
    const step = await prepareStep(lane, snapshot, serve, requested)
    await open(
      attemptOpening(state, {
        sessionId,
        serve,
        generationId,
        attempt: claim.attempt,
        ...(step.model ? { modelId: step.model.modelId } : {}),
        requestMetadata:
          step.model !== undefined && wantsMetadata(step.compaction, step.model, state),
      }),
    )
    if ('failure' in step) return void (await fail(step.failure))
    const prompt = await promptOf(lane, step, state, generationId, signal, append)
    if (prompt === 'aborted') return
    if ('failed' in prompt) {
      // The previous context stays; retry() runs the step (and the summary) again.
      return void (await fail(prompt.failed))
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
    const streamed = await streamStep(
      lane,
      context,
      step.model,
      state,
      append,
      writer,
      firstContent,
    )
    if (signal.aborted) return
    if (streamed.error !== undefined && !streamed.recordedCalls)
      return void (await fail(streamed.error))
    if (streamed.error !== undefined) {
      // The calls it recorded are the step's, as a takeover finds them
      // (closesReplacedStep): their tools run, or ran, and failing the step
      // would have Retry ask the model again, for the same intent, under
      // new calls: an email sent twice. The step ends on its calls; the
      // next step sees their results.
      lane.config.logger.warn(
        `a2: generation ${generationId} of session ${sessionId} failed after recording tool calls (${streamed.error}); its step ends on those calls`,
      )
      return void (await close({
        outcome: 'success',
        finishReason: 'tool-calls',
        error: clipped(streamed.error),
        ...(streamed.usage ? { usage: streamed.usage } : {}),
        modelId: step.model.modelId,
        estimatedInputTokens: prompt.estimatedInputTokens,
      }))
    }
    await close({
      outcome: 'success',
      ...(streamed.finishReason === undefined ? {} : { finishReason: streamed.finishReason }),
      ...(streamed.usage ? { usage: streamed.usage } : {}),
      modelId: step.model.modelId,
      estimatedInputTokens: prompt.estimatedInputTokens,
    })
  })
  return DONE
}

/**
 * The state the step is served from: the one read before the claim, unless
 * the claim had a holder before (a takeover, or a retry after a failure).
 * Then the attempt it replaces, should it still be alive (a frozen
 * container whose claim ran out), may have recorded more since that read (a
 * tool call): the takeover decides on the log as it is now, under its
 * claim, where that attempt's fenced writes can no longer land. Undefined
 * when the step is no longer the one to serve (done, or of an ended life):
 * the claim goes back.
 */
async function underClaim(
  lane: GenerationPorts,
  sessionId: string,
  read: StateSnapshot<SessionState>,
  due: StepToServe,
  claim: Claim,
): Promise<StateSnapshot<SessionState> | undefined> {
  if (claim.previous === undefined) return read
  const now = await lane.state(sessionId)
  const serve = stepToServe(now.state.ai)
  return now.life === read.life && now.state.ai.active && serve?.requestId === due.requestId
    ? now
    : undefined
}

/**
 * A step's writes go on at a moved head only while its generation is the
 * running one: Stop, Pause now or a newer attempt ends it (each an event in
 * the log), and the writer is fenced out.
 */
function whileCurrent(
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

/**
 * Ends the step of a vanished attempt that recorded tool calls, under this
 * attempt's claim (see `closesReplacedStep`), with the controller's decision
 * after it. The vanished attempt, should it still be alive, is fenced out
 * by the claim and, for its progress, by the step's end.
 */
async function closeReplacedStep(
  lane: GenerationPorts,
  sessionId: string,
  snapshot: StateSnapshot<SessionState>,
  serve: StepToServe & { replaces: string },
  fence: Fence,
): Promise<void> {
  lane.config.logger.warn(
    `a2: generation ${serve.replaces} of session ${sessionId} stopped after recording tool calls; attempt ${fence.attempt} ends its step there rather than running it again`,
  )
  const writer = atIndexWriter(lane, sessionId, {
    from: { index: snapshot.index, life: snapshot.life },
    goesOn: whileCurrent(sessionId, serve.replaces, fence),
  })
  await writer.close(
    generationCompleted(serve.replaces, serve.requestId, {
      outcome: 'success',
      finishReason: 'tool-calls',
    }),
    { fence, controller: lane.config.controller },
  )
}

/**
 * The request being served, as stored (what resolvers and a custom
 * `generate` receive as `event`).
 */
async function requestedEvent(
  lane: GenerationPorts,
  sessionId: string,
  state: AIState,
  serve: StepToServe,
): Promise<RequestedEvent> {
  const at = state.active?.request
  if (at === undefined || at.id !== serve.requestId) {
    throw new Error(`a2: session ${sessionId} does not say where request ${serve.requestId} is`)
  }
  return (await storedEventAt(lane.read, sessionId, at)) as RequestedEvent
}

type PreparedStep =
  | { failure: string; model?: ResolvedModel; compaction?: StepCompaction }
  | {
      model: ResolvedModel
      instructions: string | undefined
      compaction: StepCompaction
      messages: UIMessage[]
      resolverContext: ResolverContext
      definitions: ReturnType<typeof toolDefinitions>
    }

/**
 * The step's model, instructions and compaction, from the resolvers (a
 * throwing resolver fails the step). A retried, resumed or recovered attempt
 * does not see the output of the attempt it replaces.
 */
async function prepareStep(
  lane: GenerationPorts,
  snapshot: StateSnapshot<SessionState>,
  serve: StepToServe,
  event: RequestedEvent,
): Promise<PreparedStep> {
  const state = snapshot.state.ai
  const messages = await wellFormedPrompt(
    promptMessages(state, {
      withoutCurrentStep: state.response?.uncommittedStep === true || serve.replaces !== undefined,
    }),
    warnLeftOut(lane.config.logger, event.sessionId),
  )
  const resolverContext: ResolverContext = {
    state: snapshot.state.app,
    messages,
    event,
    sessionId: event.sessionId,
  }
  let model: ResolvedModel | undefined
  let compaction: StepCompaction | undefined
  try {
    model = await resolveModel(await lane.config.model(resolverContext))
    const instructions = await lane.config.instructions(resolverContext)
    compaction = await lane.config.compaction(resolverContext)
    return {
      model,
      instructions,
      compaction,
      messages,
      resolverContext,
      definitions: toolDefinitions(lane.config.tools),
    }
  } catch (error) {
    return {
      failure: messageOf(error),
      ...(model ? { model } : {}),
      ...(compaction ? { compaction } : {}),
    }
  }
}

type Prompt = {
  messages: UIMessage[]
  modelMessages: Awaited<ReturnType<typeof modelMessagesOf>>
  estimatedInputTokens: number
}

/** The step's prompt: compacted first when that is due (see compact-if-due.ts). */
async function promptOf(
  lane: GenerationPorts,
  step: Exclude<PreparedStep, { failure: string }>,
  state: AIState,
  generationId: string,
  signal: AbortSignal,
  append: Append,
): Promise<Prompt | { failed: string } | 'aborted'> {
  const measure = async (messages: UIMessage[]): Promise<Prompt> => {
    const modelMessages = await modelMessagesOf(messages, step.definitions)
    const estimatedInputTokens = estimateTokens(
      { instructions: step.instructions, modelMessages, tools: step.definitions },
      state.calibration[step.model.modelId] ?? 1,
    )
    return { messages, modelMessages, estimatedInputTokens }
  }
  const prompt = await measure(step.messages)
  const compacted = await compactIfDue({
    compaction: step.compaction,
    maxOutputTokens: lane.config.generation.maxOutputTokens,
    providerOptions: lane.config.generation.providerOptions,
    state,
    model: step.model,
    instructions: step.instructions,
    messages: prompt.messages,
    modelMessages: prompt.modelMessages,
    estimatedInputTokens: prompt.estimatedInputTokens,
    definitions: step.definitions,
    generationId,
    signal,
    telemetry: lane.invocation.telemetry,
    append,
  })
  if (compacted === undefined) return prompt
  if (compacted === 'aborted' || 'failed' in compacted) return compacted
  return measure(compacted)
}

/**
 * Streams the step into batched progress, recording each tool call as soon
 * as its input is complete (the chunks before it go in the same append). A2's
 * own write failing (fenced out, the store) is not the model's failure: it
 * ends the attempt, and the claim decides what happens next.
 */
async function streamStep(
  lane: GenerationPorts,
  context: GenerateContext,
  model: ResolvedModel,
  state: AIState,
  append: Append,
  writer: AtIndexWriter,
  firstContent: () => void,
): Promise<{
  finishReason?: string
  error?: string
  usage?: Record<string, unknown>
  /** Whether it recorded a call of one of the agent's tools (not a provider-executed one). */
  recordedCalls: boolean
}> {
  const { generationId, signal } = context
  const active = state.active as NonNullable<AIState['active']>
  let sequence = 0
  const progress = (chunks: UIMessageChunk[]): AIEventInput<UIMessage> => ({
    id: derivedId('progress', generationId, ++sequence),
    type: 'ai.generation.progress',
    payload: { generationId, chunks },
  })
  const batcher = progressBatcher(
    async (chunks) => void (await writer.append([progress(chunks)], { progress: true })),
    lane.config.generation.progress,
    lane.config.timers,
  )
  const identity = { generationId, turnId: active.turnId, messageId: active.responseMessageId }
  const factsOf = stepFacts(lane.config.tools, lane.config.toolApproval, identity, state)
  // Pending chunks go first, so the call the approval is for is recorded before it.
  const approvals = harnessApprovals(
    lane,
    context.sessionId,
    identity,
    async (events) => {
      const pending = await batcher.drain()
      await append([...(pending.length > 0 ? [progress(pending)] : []), ...events])
    },
    signal,
  )
  const harness = lane.config.harness
  let finishReason: string | undefined
  let error: string | undefined
  let writeFailure: { error: unknown } | undefined
  let usage: PromiseLike<unknown> | undefined
  let contentSeen = false
  let recordedCalls = false
  // A step that stops reading early (its output refused) ends its model call
  // too: the AI SDK would go on streaming it, overlapping the next attempt's.
  const reading = new AbortController()
  try {
    const generated = await harness.step({
      ...context,
      signal: AbortSignal.any([signal, reading.signal]),
      resolved: model,
      turnInputIds: [...active.contextInputIds, active.inputId],
      approvals,
    })
    usage = generated.usage
    for await (const streamed of generated.stream) {
      if (signal.aborted) break
      // streamText validates tool input; other loops' calls get the same check.
      const chunk = normalizedChunk(
        harness.validatesToolInput
          ? streamed
          : await validatedToolInput(streamed, lane.config.tools),
      )
      if (chunk.type === 'finish' && chunk.finishReason) finishReason = chunk.finishReason
      if (chunk.type === 'error') error = chunk.errorText
      if (!contentSeen && chunk.type !== 'error' && showsContent(chunk)) {
        contentSeen = true
        firstContent()
      }
      try {
        batcher.push(chunk)
        const facts = factsOf(chunk)
        if (facts.length === 0) continue
        const pending = await batcher.drain()
        await append([...(pending.length > 0 ? [progress(pending)] : []), ...facts])
        recordedCalls ||= facts.some(
          (fact) => fact.type === 'ai.tool.called' && fact.payload.providerExecuted !== true,
        )
      } catch (caught) {
        writeFailure = { error: caught }
        reading.abort()
        break
      }
    }
  } catch (caught) {
    if (!signal.aborted && !reading.signal.aborted) error = messageOf(caught)
  }
  if (writeFailure) await batcher.close().catch(() => undefined)
  else {
    try {
      await batcher.close()
    } catch (caught) {
      writeFailure = { error: caught }
    }
  }
  if (writeFailure) {
    // The model's own output, refused by the log, fails the step; anything
    // else (fenced out, the store) ends the attempt for the claim to decide.
    if (isContentRefusal(writeFailure.error))
      return { error: unstorable(writeFailure.error), recordedCalls }
    throw writeFailure.error
  }
  const used = usage
    ? normalizedUsage(
        (await Promise.resolve(usage).catch(() => undefined)) as
          | Record<string, unknown>
          | undefined,
      )
    : undefined
  return {
    ...(finishReason === undefined ? {} : { finishReason }),
    ...(error === undefined ? {} : { error }),
    ...(used ? { usage: used } : {}),
    recordedCalls,
  }
}

/**
 * The first generation with each Gateway model records a metadata request,
 * which the metadata lane answers: only while compaction is on (it needs the
 * model's limits), and not for AI SDK model objects (not in the catalog).
 */
function wantsMetadata(
  compaction: StepCompaction | undefined,
  model: ResolvedModel,
  state: AIState,
): boolean {
  return (
    compaction?.on === true && model.gateway && !Object.hasOwn(state.modelMetadata, model.modelId)
  )
}

/** The reason a step fails with when the log refused what the model produced. */
function unstorable(error: Error): string {
  return `A2 could not store the model's output, so the step failed (retry() runs it again): ${error.message}`
}

/** How much of a failure's message the log keeps: enough to read, never too much to store. */
const MAX_ERROR_LENGTH = 4_000

/** A failure's reason, short enough to store whatever the error said. */
function clipped(error: string): string {
  return error.length > MAX_ERROR_LENGTH ? `${error.slice(0, MAX_ERROR_LENGTH)}…` : error
}
