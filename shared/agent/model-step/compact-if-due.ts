import type { ProviderOptions } from '@ai-sdk/provider-utils'
import type { ModelMessage, TelemetryOptions, ToolSet, UIMessage } from 'ai'
import { messageOf } from '../../log/message-of.ts'
import type { AIEventInput } from '../../model/events/ai-events.ts'
import { derivedId } from '../../model/ids/ids.ts'
import type { AIState } from '../../model/state/ai-state.ts'
import {
  type CompactionContext,
  compactionBoundary,
  requestSummary,
  type StepCompaction,
  SUMMARY_PREFIX,
  thresholdFor,
  toolWorkSettled,
} from './compaction.ts'
import { modelMessagesOf } from './prompt.ts'
import type { ResolvedModel } from './resolve-model.ts'

interface CompactionStep {
  /** Whether this generation compacts, and how (decided by `stepCompaction`). */
  compaction: StepCompaction
  /** The step's `maxOutputTokens`, which the threshold leaves room for. */
  maxOutputTokens: number | undefined
  providerOptions: ProviderOptions | undefined
  state: AIState
  model: ResolvedModel
  instructions: string | undefined
  /** The prompt's UI messages (the last summary already in place). */
  messages: UIMessage[]
  modelMessages: ModelMessage[]
  estimatedInputTokens: number
  definitions: ToolSet
  generationId: string
  signal: AbortSignal
  /** The AI SDK telemetry of the summary's model call (the step's own). */
  telemetry: TelemetryOptions
  append: (events: AIEventInput<UIMessage>[]) => Promise<unknown>
}

/**
 * Before a model step: when the estimated prompt crosses the threshold (or a
 * custom `shouldCompact` says so) and the tool work has settled, summarize
 * everything before the active turn's input and return the new prompt
 * (summary plus the rest). `undefined`: nothing to do; `{ failed }`: the
 * summary failed, and with it the step; `'aborted'`: Stop, Pause now or a
 * newer attempt ended the work meanwhile.
 */
export async function compactIfDue(
  step: CompactionStep,
): Promise<UIMessage[] | { failed: string } | 'aborted' | undefined> {
  if (!step.compaction.on) return undefined
  const config = step.compaction.options
  const thresholdTokens = thresholdFor(
    step.compaction,
    step.maxOutputTokens,
    step.model,
    step.state,
  )
  const context: CompactionContext = {
    messages: step.messages,
    modelMessages: step.modelMessages,
    estimatedTokens: step.estimatedInputTokens,
    thresholdTokens,
    signal: step.signal,
  }
  const due = config.shouldCompact
    ? await config.shouldCompact(context)
    : thresholdTokens !== undefined && step.estimatedInputTokens > thresholdTokens
  if (!due || !toolWorkSettled(step.state)) return undefined
  const upToMessageId = compactionBoundary(step.state)
  if (upToMessageId === undefined) return undefined
  const active = step.state.active
  if (!active) return undefined

  const compactionId = derivedId('compaction', step.generationId)
  await step.append([
    {
      id: derivedId('compaction-started', compactionId),
      type: 'ai.compaction.started',
      payload: {
        compactionId,
        messageId: active.responseMessageId,
        inputTokens: step.estimatedInputTokens,
        ...(thresholdTokens === undefined ? {} : { thresholdTokens }),
      },
    },
  ])
  // The summary covers the prompt up to the boundary: a prefix of the request.
  const cut = step.messages.findIndex((message) => message.id === upToMessageId)
  const covered = step.messages.slice(0, cut + 1)
  const rest = step.messages.slice(cut + 1)
  try {
    const { summary, usage } = config.compact
      ? {
          summary: (await config.compact({ ...context, messages: covered })).trim(),
          usage: undefined,
        }
      : await requestSummary({
          model: step.model,
          instructions: step.instructions,
          modelMessages: await modelMessagesOf(covered, step.definitions),
          tools: step.definitions,
          extra: config.instructions,
          providerOptions: step.providerOptions,
          signal: step.signal,
          telemetry: step.telemetry,
        })
    if (summary === '') throw new Error('The summary is empty')
    await step.append([
      {
        id: derivedId('compaction-completed', compactionId),
        type: 'ai.compaction.completed',
        payload: { compactionId, summary, upToMessageId, ...(usage ? { usage } : {}) },
      },
    ])
    return [
      {
        id: compactionId,
        role: 'user',
        parts: [{ type: 'text', text: `${SUMMARY_PREFIX}${summary}` }],
      },
      ...rest,
    ]
  } catch (error) {
    if (step.signal.aborted) return 'aborted'
    await step.append([
      {
        id: derivedId('compaction-failed', compactionId),
        type: 'ai.compaction.failed',
        payload: {
          compactionId,
          status: 'failed',
          error: messageOf(error),
        },
      },
    ])
    return {
      failed: `Compaction failed: ${messageOf(error)}`,
    }
  }
}
