import type { TelemetryOptions, ToolSet, UIMessage } from 'ai'
import type { ContractEvents } from '../../log/contract.ts'
import type { ControllerOptions } from '../../model/controller/controller-options.ts'
import type { ToolApprovalPolicy } from '../../model/controller/step-facts.ts'
import { DEFAULT_PINNED_FOR_MS, type VersionPolicy } from '../../model/controller/version-pin.ts'
import { controlRequestSchema } from '../../model/events/control.ts'
import { DEFAULT_CLAIM_TTL_MS } from '../../model/ids/claim-keys.ts'
import type { VersionRoutes } from '../../runtime/version-routes.ts'
import { GLOBAL_TIMERS, type Timers } from '../../timing/timers.ts'
import type { Harness } from '../harness/harness.ts'
import { harnessOf } from '../harness/harness-of.ts'
import type { HarnessOptions, HarnessSettings } from '../harness/harness-options.ts'
import { type StepCompaction, stepCompaction } from '../model-step/compaction.ts'
import { agentModelCatalog, type ModelCatalog } from '../model-step/model-catalog.ts'
import { checkModelChoice, type ModelChoice } from '../model-step/resolve-model.ts'
import { type AgentMetrics, NO_METRICS, safeMetrics } from './agent-metrics.ts'
import type {
  AgentOptions,
  AppHandlerArgs,
  GenerationSettings,
  ResolverContext,
} from './agent-options.ts'
import { agentVersion } from './agent-version.ts'

export type Logger = Pick<Console, 'info' | 'warn' | 'error'>

/**
 * An agent's options, resolved once when the agent is made: defaults filled
 * in, resolvers made uniform, and every decision that the options alone fix
 * taken here (is compaction on, which lanes run, which tools need approval),
 * so no lane decides it again. The clock is here too: it reaches the store,
 * the scheduler, the dispatcher, resolvers and every timestamp the runtime
 * writes.
 */
export interface AgentConfig {
  readonly name: string
  /** This deploy's version (given, or derived: agent-version.ts), recorded on the steps and results it runs. */
  readonly version: string
  /** Which version runs a pinned turn's work, and how it is reached (`versions`). */
  readonly versions: { policy: VersionPolicy; pinnedForMs: number; routes?: VersionRoutes }
  readonly tools: ToolSet
  readonly claimTtlMs: number
  /** What the controller needs of the options (`maxSteps`), and its command check. */
  readonly controller: ControllerOptions
  /** `toolLane: 'tools'`: a session's tool calls run one at a time. */
  readonly serialTools: boolean
  /** What a cut-short call of `toolName` gets: run again, or reported to the model. */
  toolRecovery(toolName: string): 'rerun' | 'report'
  readonly toolApproval: Record<string, ToolApprovalPolicy>
  readonly generation: GenerationSettings
  /** The agent's loop, behind the port the generation lane drives (harness/harness.ts). */
  readonly harness: Harness
  /** The step's model, instructions and compaction, resolved per generation. */
  model(context: ResolverContext): Promise<ModelChoice>
  instructions(context: ResolverContext): Promise<string | undefined>
  compaction(context: ResolverContext): Promise<StepCompaction>
  readonly handlers: Readonly<Record<string, (args: AppHandlerArgs) => Promise<void> | void>>
  /** The event types `handlers` handles: what wakes the handlers lane. */
  readonly handledTypes: ReadonlySet<string>
  /** The catalog, falling back (with one warning) when it cannot be reached. */
  readonly modelCatalog: ModelCatalog
  readonly now: () => number
  /** The timers of the runtime's in-process waits (claim renewals, progress windows). */
  readonly timers: Timers
  readonly logger: Logger
  /** Where figures go when a run is not given its own sink (never throws). */
  readonly metrics: AgentMetrics
  /** The AI SDK telemetry of model calls; `isEnabled` says whether it is on. */
  readonly telemetry: TelemetryOptions
}

/**
 * Resolves an agent's options. Throws a `TypeError` for options that cannot
 * work: no name, a model that is none (`checkModelChoice`), a contract
 * event in the `ai.` namespace, or automatic
 * compaction with provider-executed tools (a resolver's choice is checked
 * per generation, where it fails the step instead); and an
 * `UnknownHarnessError` for a `harness.type` this package does not run
 * (`HarnessNotImportedError` for Pi's or FX's without its adapter).
 */
export function resolveAgentConfig<
  Tools extends ToolSet,
  Events extends ContractEvents,
  AppState,
  M extends UIMessage,
>(typed: AgentOptions<Tools, Events, AppState, M>): AgentConfig {
  // The one place the options' generics are let go: below this, app state is
  // `unknown` and messages are `UIMessage`, as the lanes see them. Resolvers
  // are called with what the typed options promise (the contract's state,
  // its messages), so the erasure is safe.
  const options = typed as unknown as AgentOptions
  const name = options.name ?? options.contract?.name
  if (!name) throw new TypeError('agent() needs a name or a contract')
  for (const type of Object.keys(options.contract?.events ?? {})) {
    if (type.startsWith('ai.'))
      throw new TypeError(`The contract declares "${type}": ai.* event types belong to A2`)
  }
  // A resolver's answer is checked per step, where it fails the step instead.
  if (typeof options.model !== 'function') checkModelChoice(options.model)
  const harnessOptions: HarnessOptions = options.harness ?? { type: 'ai-sdk' }
  const loop = harnessOf(harnessOptions, options.tools ?? {})
  const harness = settingsOf(harnessOptions)
  const tools: ToolSet = { ...options.tools, ...loop.tools }
  const resolve = <T>(
    value: T | ((context: ResolverContext) => T | Promise<T>),
  ): ((context: ResolverContext) => Promise<T>) =>
    typeof value === 'function'
      ? async (context) => (value as (context: ResolverContext) => T | Promise<T>)(context)
      : async () => value
  const compactionSetting = harness.compaction
  const customGenerate = !loop.compactsByDefault
  if (typeof compactionSetting !== 'function') {
    // Fails now, at construction, not at the first turn.
    stepCompaction(compactionSetting, { tools, customGenerate })
  }
  const compactionOf = resolve(compactionSetting)
  const recovery: Record<string, 'report' | 'rerun' | undefined> = options.toolRecovery ?? {}
  const handlers: AgentConfig['handlers'] = options.handlers ?? {}
  const logger = options.logger ?? console
  const toolRecovery = (toolName: string) =>
    Object.hasOwn(recovery, toolName) ? (recovery[toolName] ?? 'rerun') : 'rerun'
  const handledTypes = new Set(Object.keys(handlers))
  const serialTools = options.toolLane === 'tools'
  return {
    name,
    version: agentVersion(options.version, {
      tools,
      ...(options.contract ? { contract: options.contract } : {}),
      handledTypes,
      toolRecovery,
      serialTools,
      toolApproval: harness.generation?.toolApproval ?? {},
      harness: harnessOptions.type,
    }),
    versions: checkedVersions(options.versions),
    tools,
    claimTtlMs: options.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS,
    controller: {
      ...(harness.maxSteps === undefined ? {} : { maxSteps: harness.maxSteps }),
      // The schema the log validates pushes with, not the browser's hand-written check.
      isWellFormed: (payload) => controlRequestSchema.safeParse(payload).success,
    },
    serialTools,
    toolRecovery,
    toolApproval: harness.generation?.toolApproval ?? {},
    generation: harness.generation ?? {},
    harness: loop,
    model: resolve(options.model),
    instructions: resolve(options.instructions),
    compaction: async (context) =>
      stepCompaction(await compactionOf(context), { tools, customGenerate }),
    handlers,
    handledTypes,
    modelCatalog: agentModelCatalog(options.modelCatalog ?? {}, logger),
    now: options.now ?? Date.now,
    timers: options.timers ?? GLOBAL_TIMERS,
    logger,
    metrics: options.metrics ? safeMetrics(options.metrics) : NO_METRICS,
    telemetry: {
      functionId: name,
      ...options.telemetry,
      isEnabled: options.telemetry !== undefined && options.telemetry.isEnabled !== false,
    },
  }
}

const VERSION_POLICIES: readonly VersionPolicy[] = ['turn', 'pinned', 'latest']

/** `versions` with its defaults, or a TypeError naming what cannot work. */
function checkedVersions(given: AgentOptions['versions']): AgentConfig['versions'] {
  const policy = given?.policy ?? 'turn'
  const pinnedForMs = given?.pinnedForMs ?? DEFAULT_PINNED_FOR_MS
  if (!VERSION_POLICIES.includes(policy))
    throw new TypeError(
      `agent({ versions: { policy: ${JSON.stringify(policy)} } }): the policies are ${VERSION_POLICIES.join(', ')}`,
    )
  if (!(pinnedForMs >= 0))
    throw new TypeError(
      `agent({ versions: { pinnedForMs: ${pinnedForMs} } }): a pin's bound is 0 ms or more`,
    )
  return { policy, pinnedForMs, ...(given?.routes ? { routes: given.routes } : {}) }
}

/** What every harness's options may set: per-step settings, the step budget, compaction. */
function settingsOf(options: HarnessOptions): HarnessSettings {
  return options
}
