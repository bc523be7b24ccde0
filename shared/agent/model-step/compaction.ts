import type { ProviderOptions } from '@ai-sdk/provider-utils'
import {
  type ModelMessage,
  streamText,
  type TelemetryOptions,
  type ToolSet,
  type UIMessage,
} from 'ai'
import type { AIState } from '../../model/state/ai-state.ts'
import type { ResolvedModel } from './resolve-model.ts'

/** What the custom compaction callbacks receive. */
export interface CompactionContext<M extends UIMessage = UIMessage> {
  /** The prompt's UI messages, the current summary included. */
  messages: M[]
  /** The same, model-ready. */
  modelMessages: ModelMessage[]
  estimatedTokens: number
  thresholdTokens: number | undefined
  signal: AbortSignal
}

export interface CompactionOptions<M extends UIMessage = UIMessage> {
  thresholdTokens?: number
  /** Added to the summary prompt, e.g. 'Preserve exact IDs.' */
  instructions?: string
  shouldCompact?: (context: CompactionContext<M>) => boolean | Promise<boolean>
  /** Writes the summary yourself; A2 records it like its own. */
  compact?: (context: CompactionContext<M>) => string | Promise<string>
}

/** `harness.compaction` for one generation, its resolver resolved. */
export type CompactionSetting<M extends UIMessage = UIMessage> =
  | false
  | CompactionOptions<M>
  | undefined

/** Whether, and how, one model step compacts: decided once, from the setting. */
export type StepCompaction<M extends UIMessage = UIMessage> =
  | { on: false }
  | { on: true; options: CompactionOptions<M> }

/**
 * The one place that decides whether compaction is on: not with `false`,
 * not with a custom `generate` unless compaction is configured, and never
 * automatically with provider-executed tools (a `TypeError` saying so).
 */
export function stepCompaction<M extends UIMessage>(
  setting: CompactionSetting<M>,
  agent: { tools: ToolSet; customGenerate: boolean },
): StepCompaction<M> {
  if (setting === false || (setting === undefined && agent.customGenerate)) return { on: false }
  const conflict = compactionConflict(agent.tools, setting)
  if (conflict !== undefined) throw new TypeError(conflict)
  return { on: true, options: setting ?? {} }
}

/**
 * Automatic compaction cannot summarize around provider-executed tools: the
 * message that says so when a setting asks for it, or `undefined`.
 */
function compactionConflict<M extends UIMessage>(
  tools: ToolSet,
  setting: CompactionSetting<M>,
): string | undefined {
  if (setting === undefined || setting === false || setting.compact) return undefined
  const providerTools = Object.entries(tools)
    .filter(([, definition]) => (definition as { type?: string }).type === 'provider')
    .map(([name]) => name)
  if (providerTools.length === 0) return undefined
  return `harness.compaction cannot run automatically with provider-executed tools (${providerTools.join(', ')}); pass compaction: false, or custom shouldCompact/compact callbacks`
}

const SUMMARY_REQUEST =
  'Summarize the conversation so far for your own later use: the user, their goals, every decision, fact, open question and result, and the exact IDs, names and numbers mentioned. Reply with the summary only.'

/** The summary as the model sees it in later requests, in place of what it covers. */
export const SUMMARY_PREFIX = 'Summary of the earlier conversation:\n'

/**
 * Serialized UTF-8 bytes divided by four: not a tokenizer, no remote call.
 * Calibrated by the previous same-model call's input tokens over its estimate.
 */
export function estimateTokens(
  parts: { instructions?: string; modelMessages: ModelMessage[]; tools: ToolSet },
  calibration = 1,
): number {
  const bytes = new TextEncoder().encode(
    JSON.stringify([
      parts.instructions ?? '',
      parts.modelMessages,
      Object.keys(parts.tools).map((name) => [name, parts.tools[name]?.description]),
    ]),
  ).byteLength
  return Math.ceil((bytes / 4) * calibration)
}

/**
 * The threshold: `thresholdTokens`, or 75% of the model's context window from
 * the catalog, lowered when `maxOutputTokens` would not fit beside it. With
 * neither (the lookup has not landed) the session does not compact yet.
 */
export function thresholdFor(
  compaction: StepCompaction,
  maxOutputTokens: number | undefined,
  model: ResolvedModel,
  state: AIState,
): number | undefined {
  if (!compaction.on) return undefined
  if (compaction.options.thresholdTokens !== undefined) return compaction.options.thresholdTokens
  const metadata = state.modelMetadata[model.modelId]
  if (metadata?.status !== 'resolved' || !metadata.contextWindow) return undefined
  const window = metadata.contextWindow
  return Math.floor(Math.min(window * 0.75, window - (maxOutputTokens ?? 0)))
}

/**
 * Whether the tool work compaction must wait for has settled: every earlier
 * call of the turn has a final result, no cut-short call is still settling,
 * and no tool work is dead-lettered.
 */
export function toolWorkSettled(state: AIState): boolean {
  if (
    state.tools.some(
      (tool) =>
        tool.status === 'running' ||
        tool.status === 'cancelled' ||
        tool.status === 'awaiting-approval',
    )
  ) {
    return false
  }
  return !state.deadLetters.some((letter) => letter.lane === 'tools')
}

/** The last message a new summary would cover: the one before the active turn's input. */
export function compactionBoundary(state: AIState): string | undefined {
  const inputId = state.active?.inputId
  const at = state.messages.findIndex((message) => message.id === inputId)
  const before = at > 0 ? state.messages[at - 1] : undefined
  if (!before) return undefined
  // Nothing new since the last summary: no point in another.
  if (state.compacted?.upToMessageId === before.id) return undefined
  return before.id
}

/**
 * The summary request: the active model with the same instructions, tools
 * (never executed: `toolChoice: 'none'`) and provider settings, the prompt
 * as the prefix. An empty summary or a tool call is a failure.
 */
export async function requestSummary(args: {
  model: ResolvedModel
  instructions: string | undefined
  modelMessages: ModelMessage[]
  tools: ToolSet
  extra: string | undefined
  providerOptions: ProviderOptions | undefined
  signal: AbortSignal
  telemetry?: TelemetryOptions
}): Promise<{ summary: string; usage: Record<string, unknown> | undefined }> {
  const result = streamText({
    model: args.model.model,
    messages: [
      ...args.modelMessages,
      { role: 'user', content: args.extra ? `${SUMMARY_REQUEST}\n${args.extra}` : SUMMARY_REQUEST },
    ],
    tools: args.tools,
    toolChoice: 'none',
    abortSignal: args.signal,
    onError: () => {},
    ...(args.telemetry ? { telemetry: args.telemetry } : {}),
    ...(args.instructions === undefined ? {} : { instructions: args.instructions }),
    ...(args.model.reasoning === undefined ? {} : { reasoning: args.model.reasoning }),
    ...(args.providerOptions || args.model.providerOptions
      ? { providerOptions: { ...args.model.providerOptions, ...args.providerOptions } }
      : {}),
  })
  const [text, toolCalls, usage] = await Promise.all([result.text, result.toolCalls, result.usage])
  if (toolCalls.length > 0) throw new Error('The summary request answered with a tool call')
  if (text.trim() === '') throw new Error('The summary request answered with an empty summary')
  return { summary: text.trim(), usage: { ...usage } }
}
