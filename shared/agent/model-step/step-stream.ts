import type { UIMessage, UIMessageChunk } from 'ai'
import { isContentRefusal } from '../../log/content-refusal.ts'
import { messageOf } from '../../log/message-of.ts'
import { stepFacts } from '../../model/controller/step-facts.ts'
import type { AIEventInput } from '../../model/events/ai-events.ts'
import type { AIState } from '../../model/state/ai-state.ts'
import type { HarnessStepContext } from '../harness/harness.ts'
import type { GenerationPorts } from '../lanes/lane-ports.ts'
import type { GenerateContext } from '../wiring/agent-options.ts'
import { normalizedChunk, normalizedUsage } from './compatibility-mode.ts'
import { unstorable } from './failure-reason.ts'
import { harnessApprovals } from './harness-approvals.ts'
import { progressBatcher, showsContent } from './progress-batcher.ts'
import type { ResolvedModel } from './resolve-model.ts'
import type { StepWrites } from './step-writes.ts'
import { validatedToolInput } from './validated-tool-input.ts'

/** What the model's stream came to, as far as the step's end needs it. */
export interface StreamedStep {
  finishReason?: string
  error?: string
  usage?: Record<string, unknown>
  /** Whether it recorded a call of one of the agent's tools (not a provider-executed one). */
  recordedCalls: boolean
}

/** What reading the stream found, before the batcher wrote what still waited. */
interface Reading {
  finishReason?: string
  error?: string
  usage?: PromiseLike<unknown>
  recordedCalls: boolean
  /** A2's own write that failed while the stream was read. */
  writeFailure?: { error: unknown }
}

/**
 * Streams the step into batched progress, recording each tool call as soon
 * as its input is complete (the chunks before it go in the same append). A2's
 * own write failing (fenced out, the store) is not the model's failure: it
 * ends the attempt, and the claim decides what happens next.
 */
export async function streamStep(
  lane: GenerationPorts,
  context: GenerateContext,
  model: ResolvedModel,
  state: AIState,
  writes: StepWrites,
  firstContent: () => void,
): Promise<StreamedStep> {
  const { generationId, signal } = context
  const active = state.active as NonNullable<AIState['active']>
  const batcher = progressBatcher(
    writes.progress,
    lane.config.generation.progress,
    lane.config.timers,
  )
  // Pending chunks go first, so the call a fact is about is recorded before it.
  const record = async (facts: AIEventInput<UIMessage>[]) =>
    writes.appendFacts(await batcher.drain(), facts)
  const identity = { generationId, turnId: active.turnId, messageId: active.responseMessageId }
  const factsOf = stepFacts(lane.config.tools, lane.config.toolApproval, identity, state)
  const approvals = harnessApprovals(lane, context.sessionId, identity, record, signal)
  const reading = await readStream(
    lane,
    {
      ...context,
      resolved: model,
      turnInputIds: [...active.contextInputIds, active.inputId],
      approvals,
    },
    firstContent,
    async (chunk) => {
      batcher.push(chunk)
      const facts = factsOf(chunk)
      if (facts.length === 0) return false
      await record(facts)
      return facts.some(
        (fact) => fact.type === 'ai.tool.called' && fact.payload.providerExecuted !== true,
      )
    },
  )
  const { recordedCalls } = reading
  const writeFailure = await writeRemaining(batcher, reading.writeFailure)
  if (writeFailure) {
    // The model's own output, refused by the log, fails the step; anything
    // else (fenced out, the store) ends the attempt for the claim to decide.
    if (isContentRefusal(writeFailure.error))
      return { error: unstorable(writeFailure.error), recordedCalls }
    throw writeFailure.error
  }
  const used = reading.usage
    ? normalizedUsage(
        (await Promise.resolve(reading.usage).catch(() => undefined)) as
          | Record<string, unknown>
          | undefined,
      )
    : undefined
  return {
    ...(reading.finishReason === undefined ? {} : { finishReason: reading.finishReason }),
    ...(reading.error === undefined ? {} : { error: reading.error }),
    ...(used ? { usage: used } : {}),
    recordedCalls,
  }
}

/**
 * Reads the harness's stream of the step, handing each chunk to `write`
 * (which says whether it recorded a call of one of the agent's tools) until
 * the stream ends, the attempt's work is aborted, or a write fails.
 */
async function readStream(
  lane: GenerationPorts,
  context: HarnessStepContext,
  firstContent: () => void,
  write: (chunk: UIMessageChunk) => Promise<boolean>,
): Promise<Reading> {
  const { signal } = context
  const harness = lane.config.harness
  const reading: Reading = { recordedCalls: false }
  let contentSeen = false
  // A step that stops reading early (its output refused) stops its model
  // call too: the AI SDK would go on streaming it, overlapping the next attempt's.
  const stopModelCall = new AbortController()
  try {
    const generated = await harness.step({
      ...context,
      signal: AbortSignal.any([signal, stopModelCall.signal]),
    })
    reading.usage = generated.usage
    for await (const streamed of generated.stream) {
      if (signal.aborted) break
      // streamText validates tool input; other loops' calls get the same check.
      const chunk = normalizedChunk(
        harness.validatesToolInput
          ? streamed
          : await validatedToolInput(streamed, lane.config.tools),
      )
      if (chunk.type === 'finish' && chunk.finishReason) reading.finishReason = chunk.finishReason
      if (chunk.type === 'error') reading.error = chunk.errorText
      if (!contentSeen && chunk.type !== 'error' && showsContent(chunk)) {
        contentSeen = true
        firstContent()
      }
      try {
        if (await write(chunk)) reading.recordedCalls = true
      } catch (caught) {
        reading.writeFailure = { error: caught }
        stopModelCall.abort()
        break
      }
    }
  } catch (caught) {
    if (!signal.aborted && !stopModelCall.signal.aborted) reading.error = messageOf(caught)
  }
  return reading
}

/**
 * Writes the chunks the batcher still holds, once the stream is read, and
 * answers the write failure the step ends with, if any: after a failure
 * while reading, the batcher's own is beside the point.
 */
async function writeRemaining(
  batcher: ReturnType<typeof progressBatcher>,
  failure: { error: unknown } | undefined,
): Promise<{ error: unknown } | undefined> {
  if (failure) {
    await batcher.writeRemaining().catch(() => undefined)
    return failure
  }
  try {
    await batcher.writeRemaining()
    return undefined
  } catch (caught) {
    return { error: caught }
  }
}
