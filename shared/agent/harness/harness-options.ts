import type { ToolSet, UIMessage, UIMessageChunk } from 'ai'
import type { CompactionOptions } from '../model-step/compaction.ts'
import type {
  GenerateContext,
  GenerationSettings,
  MessageMetadataContext,
  Resolvable,
} from '../model-step/step-context.ts'
import type { Harness } from './harness.ts'

/**
 * What every harness takes: the per-step settings, the step budget, A2's
 * compaction. A2 reads them from the options whichever loop runs.
 */
export interface HarnessSettings<AppState = unknown, M extends UIMessage = UIMessage> {
  generation?: GenerationSettings
  /** Model steps per response (default 20). */
  maxSteps?: number
  /**
   * Automatic for Gateway models; `false` turns it (and the catalog lookup)
   * off. A resolver chooses per generation, e.g. from your contract's state;
   * `undefined` from it means the default.
   */
  compaction?: Resolvable<false | CompactionOptions<M> | undefined, AppState, M>
}

/** The AI SDK's loop (the default): each model step is one `streamText()` call. */
export interface AiSdkHarnessOptions<AppState = unknown, M extends UIMessage = UIMessage>
  extends HarnessSettings<AppState, M> {
  type: 'ai-sdk'
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
}

/**
 * A loop of its own, as `agent({ harness })` takes it: the settings every
 * harness takes (read by A2, as for `{ type: 'ai-sdk' }`) and `create`,
 * which makes the loop for one agent. Pi's and FX's adapters are made by
 * `piHarness()` (`a2-aws/harness/pi`) and `fxHarness()`
 * (`a2-aws/harness/fx`), so an agent on another loop loads neither; write
 * your own for any other loop. A plain object: spreading it
 * (`{ ...piHarness(), compaction: false }`) keeps `create`.
 *
 * @example
 * const echo: HarnessAdapter = {
 *   type: 'echo',
 *   create: () => ({
 *     type: 'echo',
 *     validatesToolInput: false,
 *     tools: {},
 *     compactsByDefault: false,
 *     async step(context) {
 *       // `UIMessageChunk`s of one step, writing the step's response message
 *       return { stream: echoStep(context.event.payload.responseMessageId, context.messages) }
 *     },
 *   }),
 * }
 */
export interface HarnessAdapter<AppState = unknown, M extends UIMessage = UIMessage>
  extends HarnessSettings<AppState, M> {
  /** The loop's name (`'pi'`, `'fx'`, yours), as its `Harness.type` says it too. */
  readonly type: string
  /**
   * Makes the loop for one agent, once, when `agent()` is called (each agent
   * gets its own): `tools` are the agent's own, which the loop's tools may
   * not shadow. A throw refuses the agent's options.
   */
  create(agent: { readonly tools: ToolSet }): Harness
}

/**
 * The agent's loop: `{ type: 'ai-sdk' }` (the default), or an adapter of
 * another loop (`piHarness()` of `a2-aws/harness/pi`, `fxHarness()` of
 * `a2-aws/harness/fx`, or your own).
 */
export type HarnessOptions<AppState = unknown, M extends UIMessage = UIMessage> =
  | AiSdkHarnessOptions<AppState, M>
  // An adapter made without type arguments (`piHarness()`) is typed on
  // `unknown` and `UIMessage`: the agent's state and messages are its
  // contract's, never inferred from it.
  | HarnessAdapter<NoInfer<AppState>, NoInfer<M>>

/** The harness types this package runs: the AI SDK's in `agent()` itself, the others through their entry points. */
export const HARNESS_TYPES = ['ai-sdk', 'pi', 'fx'] as const

/**
 * Where the adapter of each loop but the AI SDK's is imported from: its own
 * entry point, so `agent()` loads none of them unless asked.
 */
export const HARNESS_ENTRY_POINTS: Readonly<
  Record<Exclude<(typeof HARNESS_TYPES)[number], 'ai-sdk'>, { entryPoint: string; adapter: string }>
> = {
  pi: { entryPoint: 'a2-aws/harness/pi', adapter: 'piHarness' },
  fx: { entryPoint: 'a2-aws/harness/fx', adapter: 'fxHarness' },
}
