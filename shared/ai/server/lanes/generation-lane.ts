import type { ToolSet, UIMessage, UIMessageChunk } from 'ai'
import type { StoredEvent } from '../../../log/event.ts'
import { dueGeneration } from '../../controller/due-work.ts'
import type { AIEventInput, AIEventPayload } from '../../events/ai-events.ts'
import { derivedId } from '../../ids.ts'
import type { AIState } from '../../state/ai-state.ts'
import type { GenerateContext, ResolverContext } from '../agent-options.ts'
import { compactionConflict, estimateTokens, type StepHarness } from '../compaction.ts'
import { defaultGenerate } from '../default-generate.ts'
import { progressBatcher } from '../progress-batcher.ts'
import { modelMessagesOf, promptMessages, toolDefinitions } from '../prompt.ts'
import { type ResolvedModel, resolveModel } from '../resolve-model.ts'
import { validatedToolInput } from '../validated-tool-input.ts'
import { runClaimedWork } from './claimed-work.ts'
import { compactIfDue } from './compact-if-due.ts'
import type { LaneContext } from './lane-context.ts'
import { stepToolCalls } from './step-tool-calls.ts'

export const generationClaimKey = (requestId: string): string => `gen:${requestId}`

/** The request to serve: a new one, or a running one whose worker vanished. */
function requestToServe(state: AIState): { requestId: string; running?: string } | null {
  const due = dueGeneration(state)
  if (due) return { requestId: due.requestId }
  const running = state.activeGeneration
  if (running?.status === 'running' && state.active?.phase !== 'pausing') {
    return { requestId: running.requestId, running: running.generationId }
  }
  return null
}

/**
 * The generation lane: runs the session's due model step, one at a time.
 * It claims the request (a crashed worker's claim expires and the next
 * attempt supersedes it) and streams the step's chunks into batched progress
 * events. Each tool call is recorded as soon as its input is complete (with
 * its approval request, or a provider's result), so tools start while the
 * model still streams; `ai.generation.completed` closes the step. Every
 * write is fenced by the claim, so a superseded attempt's late writes are
 * refused.
 */
export async function runGenerationLane(lane: LaneContext, sessionId: string): Promise<void> {
  const { state: snapshot, index } = await lane.state(sessionId)
  const state = snapshot.ai
  const serve = requestToServe(state)
  if (!serve || !state.active) return
  const claimKey = generationClaimKey(serve.requestId)
  // Held by another process: ClaimHeldError carries retryAt. When the holder
  // died, its claim expires and the retried wake-up takes over.
  const claim = await lane.store.claim(sessionId, claimKey, { ttlMs: lane.claimTtlMs })
  const active = state.active
  const requested = requestEvent(sessionId, index, serve.requestId, state)
  const generationId = derivedId('gen', serve.requestId, claim.attempt)
  const fence = { claim: claimKey, attempt: claim.attempt }
  const append = (events: AIEventInput<UIMessage>[]) =>
    lane.appendAsA2(sessionId, events, { fence })
  // The log says why for clients; the logger says it for operators.
  const fail = (error: string) => {
    lane.logger.error(`a2: generation ${generationId} of session ${sessionId} failed: ${error}`)
    return append([completed(generationId, serve.requestId, { outcome: 'failed', error })])
  }
  await runClaimedWork(lane, sessionId, claim, async (signal) => {
    const step =
      state.activeGeneration?.requestId === serve.requestId
        ? state.activeGeneration.step
        : active.step
    const tools = (lane.options.tools ?? {}) as ToolSet
    // A retried, resumed or recovered attempt does not see the output of the
    // attempt it replaces.
    const messages = promptMessages(state, {
      withoutCurrentStep: state.response?.uncommittedStep === true || serve.running !== undefined,
    })
    const resolverContext = { state: snapshot.app, messages, event: requested, sessionId }
    let resolvedModel: ReturnType<typeof resolveModel> | undefined
    let failure: string | undefined
    let instructions: string | undefined
    let harness: StepHarness | undefined
    try {
      const choice =
        typeof lane.options.model === 'function'
          ? await lane.options.model(resolverContext)
          : lane.options.model
      resolvedModel = resolveModel(choice)
      instructions =
        typeof lane.options.instructions === 'function'
          ? await lane.options.instructions(resolverContext)
          : lane.options.instructions
      harness = await stepHarness(lane, tools, resolverContext)
    } catch (error) {
      failure = messageOf(error)
    }
    await append([
      ...(serve.running && state.compaction?.status === 'running'
        ? [
            {
              id: derivedId('compaction-interrupted', state.compaction.compactionId),
              type: 'ai.compaction.failed' as const,
              payload: {
                compactionId: state.compaction.compactionId,
                status: 'interrupted' as const,
              },
            },
          ]
        : []),
      ...(serve.running
        ? [
            {
              id: derivedId('superseded', serve.running),
              type: 'ai.generation.superseded' as const,
              payload: {
                generationId: serve.running,
                requestId: serve.requestId,
                reason: `attempt ${claim.attempt} took over`,
              },
            },
          ]
        : []),
      ...(resolvedModel && wantsMetadata(harness, resolvedModel, state)
        ? [
            {
              id: derivedId('model-metadata', resolvedModel.modelId),
              type: 'ai.model.metadata.requested' as const,
              payload: { modelId: resolvedModel.modelId },
            },
          ]
        : []),
      {
        id: derivedId('started', generationId),
        type: 'ai.generation.started',
        payload: {
          generationId,
          requestId: serve.requestId,
          turnId: active.turnId,
          responseMessageId: active.responseMessageId,
          step,
          attempt: claim.attempt,
          ...(resolvedModel ? { modelId: resolvedModel.modelId } : {}),
        },
      },
    ])
    if (failure !== undefined || !resolvedModel) {
      await fail(failure ?? 'no model')
      return
    }

    const settings = lane.options.harness?.generation ?? {}
    const definitions = toolDefinitions(tools)
    let modelMessages = await modelMessagesOf(messages, definitions)
    let estimatedInputTokens = estimateTokens(
      { instructions, modelMessages, tools: definitions },
      state.calibration[resolvedModel.modelId] ?? 1,
    )
    const compacted = await compactIfDue(lane, {
      harness,
      state,
      model: resolvedModel,
      instructions,
      messages,
      modelMessages,
      estimatedInputTokens,
      definitions,
      generationId,
      signal,
      append,
    })
    if (compacted === 'aborted') return
    if (compacted && 'failed' in compacted) {
      // The previous context stays; retry() runs the step (and the summary) again.
      await fail(compacted.failed)
      return
    }
    if (compacted) {
      resolverContext.messages = compacted
      modelMessages = await modelMessagesOf(compacted, definitions)
      estimatedInputTokens = estimateTokens(
        { instructions, modelMessages, tools: definitions },
        state.calibration[resolvedModel.modelId] ?? 1,
      )
    }
    const context: GenerateContext = {
      ...resolverContext,
      model: resolvedModel.model,
      instructions,
      modelMessages,
      generationId,
      tools: definitions,
      signal: signal,
      settings,
    }
    let sequence = 0
    const progress = (chunks: UIMessageChunk[]): AIEventInput<UIMessage> => ({
      id: derivedId('progress', generationId, ++sequence),
      type: 'ai.generation.progress',
      payload: { generationId, chunks: chunks as never },
    })
    const batcher = progressBatcher(async (chunks) => {
      await append([progress(chunks)])
    }, settings.progress)
    const toolFacts = stepToolCalls(
      tools,
      settings.toolApproval ?? {},
      { generationId, turnId: active.turnId, messageId: active.responseMessageId },
      state,
    )
    let finishReason: string | undefined
    let streamError: string | undefined
    // A2's own write failing (fenced out, the store) is not the model's
    // failure: it ends the attempt, and the claim decides what happens next.
    let writeFailure: { error: unknown } | undefined
    let usagePromise: PromiseLike<unknown> | undefined
    try {
      const generate = lane.options.harness?.generate
      const generated = generate
        ? { stream: await generate(context as never), usage: undefined }
        : defaultGenerate(context, resolvedModel, lane.options.harness?.messageMetadata as never)
      const stream = generated.stream
      usagePromise = generated.usage
      for await (const streamed of stream as unknown as AsyncIterable<UIMessageChunk>) {
        if (signal.aborted) break
        // streamText validates tool input; a custom generate's calls get the same check.
        const chunk = generate ? await validatedToolInput(streamed, tools) : streamed
        if (chunk.type === 'finish' && chunk.finishReason) finishReason = chunk.finishReason
        if (chunk.type === 'error') streamError = chunk.errorText
        batcher.push(chunk)
        // A call whose input is complete is recorded now, not when the step
        // closes: its tool starts (or its approval is asked) while the model
        // still streams. The chunks before it go in the same append.
        const facts = toolFacts(chunk)
        if (facts.length === 0) continue
        try {
          const pending = await batcher.drain()
          await append([...(pending.length > 0 ? [progress(pending)] : []), ...facts])
        } catch (error) {
          writeFailure = { error }
          break
        }
      }
    } catch (error) {
      if (!signal.aborted) streamError = messageOf(error)
    }
    if (writeFailure) {
      await batcher.close().catch(() => undefined)
      throw writeFailure.error
    }
    await batcher.close()
    if (signal.aborted) return
    const usage = usagePromise
      ? ((await Promise.resolve(usagePromise).catch(() => undefined)) as
          | Record<string, unknown>
          | undefined)
      : undefined
    if (streamError !== undefined) {
      await fail(streamError)
      return
    }
    await append([
      completed(generationId, serve.requestId, {
        outcome: 'success',
        ...(finishReason === undefined ? {} : { finishReason }),
        ...(usage ? { usage } : {}),
        modelId: resolvedModel.modelId,
        estimatedInputTokens,
      }),
    ])
  })
}

/**
 * The request as resolvers see it. Its ID is the request ID (advance() writes
 * it so), and its payload is rebuilt from state, which saves reading the log
 * for it.
 */
function requestEvent(
  sessionId: string,
  index: number,
  requestId: string,
  state: AIState,
): StoredEvent<'ai.generation.requested', AIEventPayload<'ai.generation.requested'>> {
  const active = state.active as NonNullable<AIState['active']>
  return {
    id: requestId,
    type: 'ai.generation.requested',
    payload: {
      requestId,
      turnId: active.turnId,
      responseMessageId: active.responseMessageId,
      step: active.step,
      ...(active.retryId === undefined ? {} : { retryId: active.retryId }),
    },
    sessionId,
    index,
    timestamp: Date.now(),
  }
}

/**
 * The harness for this generation: a compaction resolver chooses now, from
 * the captured state. A setting that cannot run with the agent's tools fails
 * the step, as a throwing resolver does.
 */
async function stepHarness(
  lane: LaneContext,
  tools: ToolSet,
  context: ResolverContext,
): Promise<StepHarness | undefined> {
  const harness = lane.options.harness
  if (typeof harness?.compaction !== 'function') return harness as StepHarness | undefined
  const compaction = await harness.compaction(context)
  const conflict = compactionConflict(tools, compaction)
  if (conflict !== undefined) throw new Error(conflict)
  return { ...harness, compaction }
}

/**
 * The first generation with each Gateway model records a metadata request,
 * which the metadata lane answers. Not for AI SDK model objects (not in the
 * catalog), not with `compaction: false`, and not with a custom `generate`
 * unless compaction is configured.
 */
function wantsMetadata(
  harness: StepHarness | undefined,
  model: ResolvedModel,
  state: AIState,
): boolean {
  if (harness?.compaction === false) return false
  if (harness?.generate && harness.compaction === undefined) return false
  return model.gateway && !Object.hasOwn(state.modelMetadata, model.modelId)
}

function completed(
  generationId: string,
  requestId: string,
  rest: {
    outcome: 'success' | 'failed' | 'interrupted'
    finishReason?: string
    error?: string
    usage?: Record<string, unknown>
    modelId?: string
    estimatedInputTokens?: number
  },
): AIEventInput<UIMessage> {
  return {
    id: derivedId('gen-completed', generationId),
    type: 'ai.generation.completed',
    payload: { generationId, requestId, ...rest },
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
