import type { UIMessage } from 'ai'
import type { AIState } from '../../model/state/ai-state.ts'
import type { GenerationPorts } from '../lanes/lane-ports.ts'
import { compactIfDue } from './compact-if-due.ts'
import { estimateTokens } from './compaction.ts'
import type { ReadyStep } from './prepare-step.ts'
import { modelMessagesOf } from './prompt.ts'
import type { Append } from './step-writes.ts'

/** What the model is sent for the step, with the estimate of its size. */
export interface StepPrompt {
  messages: UIMessage[]
  modelMessages: Awaited<ReturnType<typeof modelMessagesOf>>
  estimatedInputTokens: number
}

/**
 * The step's prompt: compacted first when that is due (see
 * compact-if-due.ts). `{ failed }`: the summary failed, and with it the
 * step; `'aborted'`: the attempt's work ended meanwhile.
 */
export async function stepPrompt(
  lane: GenerationPorts,
  step: ReadyStep,
  state: AIState,
  generationId: string,
  signal: AbortSignal,
  append: Append,
): Promise<StepPrompt | { failed: string } | 'aborted'> {
  const measure = async (messages: UIMessage[]): Promise<StepPrompt> => {
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
