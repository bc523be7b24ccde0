import type { ProviderOptions } from '@ai-sdk/provider-utils'
import type {
  LanguageModel,
  LanguageModelUsage,
  ModelMessage,
  TelemetryOptions,
  TextStreamPart,
  ToolSet,
  UIMessage,
  UIMessageChunk,
} from 'ai'
import type { Contract, ContractEvents } from '../../log/contract.ts'
import type { StoredEvent } from '../../log/event.ts'
import type { EventStore } from '../../log/event-store.ts'
import type { HandlerContext } from '../../runtime/handler-context.ts'
import type { RetryPolicy } from '../../runtime/in-process-dispatcher.ts'
import type { Scheduler } from '../../runtime/scheduler.ts'
import type { Dispatcher } from '../../runtime/wake-up.ts'
import type { Timers } from '../../timing/timers.ts'
import type { ToolApprovalPolicy } from '../controller/step-facts.ts'
import type { AIEventPayload } from '../events/ai-events.ts'
import type { AIState } from '../state/ai-state.ts'
import type { ModelSettings } from '../state/model-settings.ts'
import type { AgentMetrics } from './agent-metrics.ts'
import type { CompactionOptions } from './compaction.ts'
import type { ModelCatalogOptions } from './model-catalog.ts'
import type { ProgressBatching } from './progress-batcher.ts'

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

/**
 * A model ID (AI Gateway's `provider/model`, or `bedrock:<model or inference
 * profile ID>` for Amazon Bedrock with the environment's AWS credentials),
 * `ModelSettings`, or an AI SDK model object (any provider's, e.g.
 * `@ai-sdk/amazon-bedrock`'s).
 */
export type ModelChoice = string | ModelSettings | Exclude<LanguageModel, string>

export type Resolvable<T, AppState, M extends UIMessage> =
  | T
  | ((context: ResolverContext<AppState, M>) => T | Promise<T>)

export type { ToolApprovalPolicy }

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

export interface HarnessOptions<AppState = unknown, M extends UIMessage = UIMessage> {
  type: 'ai-sdk'
  generation?: GenerationSettings
  /** Model steps per response (default 20). */
  maxSteps?: number
  /** Replaces the model-facing step; returns one step's UI message chunks. */
  generate?: (
    context: GenerateContext<AppState, M>,
  ) => ReadableStream<UIMessageChunk> | Promise<ReadableStream<UIMessageChunk>>
  /**
   * Synchronous; called for each stream part of the default generator. What
   * it returns for `start` and `finish` is logged with the stream and
   * shallow-merged onto the assistant message.
   */
  messageMetadata?: (context: MessageMetadataContext<AppState, M>) => unknown
  /**
   * Automatic for Gateway models; `false` turns it (and the catalog lookup)
   * off. A resolver chooses per generation, e.g. from your contract's state;
   * `undefined` from it means the default.
   */
  compaction?: Resolvable<false | CompactionOptions<M> | undefined, AppState, M>
}

export interface AppHandlerArgs<Event = StoredEvent> extends HandlerContext<Event> {}

export interface AgentOptions<
  Tools extends ToolSet = ToolSet,
  Events extends ContractEvents = ContractEvents,
  AppState = unknown,
  M extends UIMessage = UIMessage,
> {
  /** The agent's identity (or take it from `contract`). */
  name?: string
  contract?: Contract<Events, AppState> & { message?: M }
  model: Resolvable<ModelChoice, AppState, M>
  instructions?: Resolvable<string | undefined, AppState, M>
  tools?: Tools
  harness?: HarnessOptions<AppState, M>
  /** `'tools'` runs local tools one at a time; by default they run concurrently. */
  toolLane?: 'tools'
  /** `'report'`: a call that may have been cut short is not run again; the model is told. */
  toolRecovery?: Partial<Record<keyof Tools & string, 'report' | 'rerun'>>
  /** Durable handlers for application events, at least once each. */
  handlers?: Record<string, (args: AppHandlerArgs) => Promise<void> | void>
  /**
   * The SSE stream of `fetch`: heartbeat comments every `heartbeatMs`
   * (default 15 s); an end with `: quiet` once the session has been quiet
   * for `quietMs` (default 10 s; `false`: never), telling a plain
   * `EventSource` to come back after `quietRetryMs` (default 5 s); and an
   * end after `maxDurationMs` so the client reconnects with `Last-Event-ID`
   * before a platform limit cuts the response.
   */
  stream?: {
    heartbeatMs?: number
    quietMs?: number | false
    quietRetryMs?: number
    maxDurationMs?: number
  }
  /** Where model limits (for compaction) are looked up; default: AI Gateway's catalog. */
  modelCatalog?: ModelCatalogOptions
  /** Where the log lives. Default: an in-memory store (the embedded default). */
  store?: EventStore
  /**
   * Expire idle sessions: a session with no new event for this long (`'30
   * days'`, `'12h'`, or milliseconds) is removed whole, every item kind, as
   * `erase()` would; each event moves its expiry. On DynamoDB through the
   * table's TTL (late by up to a few days). Default: kept forever.
   */
  retention?: string | number
  /** How work is woken. Default: in process. */
  dispatcher?: Dispatcher
  /** Where timers live. Default: in process. */
  scheduler?: Scheduler
  /** Embedded dispatch retries before a failing handler is dead-lettered. */
  retry?: Partial<RetryPolicy>
  /** How long a worker's claim on a generation or tool lasts between renewals (default 30 s). */
  claimTtlMs?: number
  /**
   * Where the runtime's figures go: turns started, completed and failed,
   * time to first token, tokens, tool calls and failures, dead letters,
   * appends and their write units (docs/operations.md). Default: nowhere.
   * On Lambda the A2Agent construct's functions send their own to
   * CloudWatch (EMF) whatever this says.
   */
  metrics?: AgentMetrics
  /**
   * The AI SDK's telemetry (OpenTelemetry spans per model call, through the
   * integration you register with the AI SDK), passed to `streamText` as
   * its `telemetry` option (summaries of compaction too); `functionId`
   * defaults to the agent's name. Default: off, even for an integration
   * registered globally with `registerTelemetry`. On Lambda the A2Agent
   * construct's `modelTelemetry` prop turns it on for every function.
   */
  telemetry?: TelemetryOptions
  /** Runs to `state()` and resolvers; default `Date.now`. */
  now?: () => number
  /**
   * The timers of the runtime's own waits in this process (claim renewals,
   * progress batching windows); default the global ones. With `now`, the
   * clock seam a simulator drives: `simulate()` in `a2-aws/test` runs them
   * on simulated time.
   */
  timers?: Timers
  logger?: Pick<Console, 'info' | 'warn' | 'error'>
}

export type { AIState, LanguageModelUsage }
