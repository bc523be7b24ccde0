import type { ProviderOptions } from '@ai-sdk/provider-utils'
import type {
  LanguageModel,
  ModelMessage,
  TelemetryOptions,
  TextStreamPart,
  ToolSet,
  UIMessage,
} from 'ai'
import type { StoredEvent } from '../../log/event.ts'
import type { ToolApprovalPolicy } from '../../model/controller/step-facts.ts'
import type { AIEventPayload } from '../../model/events/ai-events.ts'
import type { ProgressBatching } from './progress-batcher.ts'

// What one model step's resolvers and a custom `generate` receive, and the
// step's settings: shared by the agent's options and every harness's.

/** What model and instruction resolvers receive. */
export interface ResolverContext<AppState = unknown, M extends UIMessage = UIMessage> {
  /** Your contract's state, from the snapshot the generation captured. */
  state: AppState
  /** The prompt messages of this model step. */
  messages: M[]
  /** The `ai.generation.requested` event being served. */
  event: StoredEvent<'ai.generation.requested', AIEventPayload<'ai.generation.requested', M>>
  sessionId: string
}

export type Resolvable<T, AppState, M extends UIMessage> =
  | T
  | ((context: ResolverContext<AppState, M>) => T | Promise<T>)

/** What a custom `harness.generate` receives for one model step. */
export interface GenerateContext<AppState = unknown, M extends UIMessage = UIMessage>
  extends ResolverContext<AppState, M> {
  /** The resolved model, ready for `streamText`. */
  model: LanguageModel
  instructions: string | undefined
  modelMessages: ModelMessage[]
  generationId: string
  /** Tool definitions without `execute`: A2 runs tools itself. */
  tools: ToolSet
  signal: AbortSignal
  settings: GenerationSettings
  /**
   * The AI SDK's telemetry for this call (`telemetry` of `streamText`):
   * `isEnabled` is true only when the agent's `telemetry` option (or, on
   * Lambda, the construct's `modelTelemetry` prop) turned it on, and false
   * otherwise, so an integration registered globally stays quiet too.
   */
  telemetry?: TelemetryOptions
}

export interface GenerationSettings {
  toolApproval?: Record<string, ToolApprovalPolicy>
  maxOutputTokens?: number
  temperature?: number
  providerOptions?: ProviderOptions
  /**
   * How streamed chunks become `ai.generation.progress` events: the first
   * content chunk is written at once, later ones after a window that starts
   * at `windowMs` (50) and doubles after each write up to `maxWindowMs`
   * (250), or when `maxChunks` (64) or `maxBytes` (64 KiB) collect.
   */
  progress?: Partial<ProgressBatching>
}

/** What `harness.messageMetadata` receives: the step's generate context and the current stream part. */
export interface MessageMetadataContext<AppState = unknown, M extends UIMessage = UIMessage>
  extends GenerateContext<AppState, M> {
  part: TextStreamPart<ToolSet>
}
