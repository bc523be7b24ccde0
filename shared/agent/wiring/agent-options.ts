import type { TelemetryOptions, ToolSet, UIMessage } from 'ai'
import type { Contract, ContractEvents } from '../../log/contract.ts'
import type { StoredEvent } from '../../log/event.ts'
import type { EventStore } from '../../log/event-store.ts'
import type { ToolApprovalPolicy } from '../../model/controller/step-facts.ts'
import type { HandlerContext } from '../../runtime/handler-context.ts'
import type { Scheduler } from '../../runtime/scheduler.ts'
import type { Dispatcher } from '../../runtime/wake-up.ts'
import type { RetryPolicy } from '../../timing/backoff.ts'
import type { Timers } from '../../timing/timers.ts'
import type { HarnessOptions } from '../harness/harness-options.ts'
import type { ModelCatalogOptions } from '../model-step/model-catalog.ts'
import type { ModelChoice } from '../model-step/resolve-model.ts'
import type { Resolvable } from '../model-step/step-context.ts'
import type { AgentMetrics } from './agent-metrics.ts'

export type {
  AiSdkHarnessOptions,
  HarnessAdapter,
  HarnessOptions,
  HarnessSettings,
} from '../harness/harness-options.ts'
export type {
  GenerateContext,
  GenerationSettings,
  MessageMetadataContext,
  ResolverContext,
} from '../model-step/step-context.ts'
export type { ToolApprovalPolicy }

export interface AppHandlerArgs<Event = StoredEvent> extends HandlerContext<Event> {}

export interface AgentOptions<
  Tools extends ToolSet = ToolSet,
  Events extends ContractEvents = ContractEvents,
  AppState = unknown,
  M extends UIMessage = UIMessage,
> {
  /** The agent's identity (or take it from `contract`). */
  name?: string
  /**
   * This deploy's version (a release tag, a commit: up to 64 printable
   * characters), recorded on every model step and tool result it runs.
   * Default: a digest of what decides how stored sessions are read and run
   * (tools and their schemas, the contract, the handlers, the package
   * version). See docs/deploy.md, "Deploying a new version".
   */
  version?: string
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
   * for `quietMs` (default 10 s; `false`: never), or for `settledQuietMs`
   * (default 1 s; `false`: `quietMs` always) once an event it sent left the
   * session settled (nothing on its way without someone acting: the turn it
   * served is over, as the client's `expectsNews` tells), telling a plain
   * `EventSource` to come back after `quietRetryMs` (default 5 s); and an
   * end after `maxDurationMs` so the client reconnects with `Last-Event-ID`
   * before a platform limit cuts the response.
   */
  stream?: {
    heartbeatMs?: number
    quietMs?: number | false
    settledQuietMs?: number | false
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
   * progress batching windows, the SSE stream's heartbeat and quiet end);
   * default the global ones. With `now`, the
   * clock seam a simulator drives: `simulate()` in `a2-aws/test` runs them
   * on simulated time.
   */
  timers?: Timers
  logger?: Pick<Console, 'info' | 'warn' | 'error'>
}
