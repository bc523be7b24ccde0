import type { UIMessage, UIMessageChunk } from 'ai'
import type { CompactionOptions } from '../model-step/compaction.ts'
import type {
  GenerateContext,
  GenerationSettings,
  MessageMetadataContext,
  Resolvable,
} from '../model-step/step-context.ts'

/** What every harness takes: the per-step settings, the step budget, A2's compaction. */
interface CommonHarnessOptions<AppState, M extends UIMessage> {
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
  extends CommonHarnessOptions<AppState, M> {
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

/** A content block of Pi's messages and tool results (`@mariozechner/pi-ai`'s `TextContent`, `ImageContent`). */
export type PiContent =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }

/** What a Pi tool returns (`AgentToolResult` of `@mariozechner/pi-agent-core`). */
export interface PiToolResult<Details = unknown> {
  content: PiContent[]
  details: Details
  terminate?: boolean
}

/**
 * A tool in Pi's shape: an `AgentTool` of `@mariozechner/pi-agent-core`,
 * its `parameters` a TypeBox (JSON) schema. A2's tools lane runs it, so
 * approvals, `toolRecovery` and `handlerContext()` work as for a `tool()`.
 */
export interface PiTool {
  name: string
  label: string
  description: string
  /** A TypeBox schema (`Type.Object(...)`), which is JSON Schema. */
  parameters: object
  prepareArguments?(args: unknown): unknown
  execute(
    toolCallId: string,
    params: unknown,
    signal?: AbortSignal,
    onUpdate?: (partialResult: PiToolResult) => void,
  ): Promise<PiToolResult>
}

/** A message of Pi's loop (`AgentMessage` of `@mariozechner/pi-agent-core`): its `role` and Pi's fields. */
export interface PiMessage {
  role: string
}

/**
 * Pi's loop (`@mariozechner/pi-agent-core`, an optional peer: install it):
 * each model call of Pi's `agentLoop` is one durable A2 generation, its
 * `streamFn` running on the agent's `model`; Pi's tools and the agent's
 * `tools` run in A2's tools lane; steering reaches Pi's loop through its
 * `getSteeringMessages` at the step boundary.
 */
export interface PiHarnessOptions<AppState = unknown, M extends UIMessage = UIMessage>
  extends CommonHarnessOptions<AppState, M> {
  type: 'pi'
  /** Pi `AgentTool`s, beside the agent's AI SDK `tools` (names must differ). */
  tools?: readonly PiTool[]
  /**
   * Pi's context hook, run before each model call on Pi's messages. With it,
   * A2's automatic compaction is off unless `compaction` turns it on.
   */
  transformContext?(messages: PiMessage[], signal?: AbortSignal): Promise<PiMessage[]>
  /** Pi's conversion of its messages for the model (default: user, assistant and tool results as they are). */
  convertToLlm?(messages: PiMessage[]): PiMessage[] | Promise<PiMessage[]>
}

/**
 * FX's loop, or any agent that speaks the Agent Client Protocol: A2 runs
 * the agent's process (`command`, default `fx acp`) through
 * `@agentclientprotocol/sdk` (an optional peer: install it). One ACP prompt
 * turn is one durable generation; the agent runs its own tools, reported as
 * provider-executed calls, and its permission requests wait for the user's
 * answer in the log.
 */
export interface FxHarnessOptions {
  type: 'fx'
  /** The agent's command and arguments (default `['fx', 'acp']`). */
  command?: readonly string[]
  /** The working directory of the agent's session (default: the process's). */
  cwd?: string
  /** Extra environment variables for the agent's process. */
  env?: Readonly<Record<string, string>>
  /**
   * How long a session's agent process stays up after its last turn (default
   * 5 minutes); the next turn after that starts a new ACP session and hands
   * it the conversation so far from the log.
   */
  idleMs?: number
  /** How `session/update`s become progress events (see `generation.progress`). */
  generation?: Pick<GenerationSettings, 'progress'>
}

/** The agent's loop: `{ type: 'ai-sdk' }` (the default), `{ type: 'pi' }` or `{ type: 'fx' }`. */
export type HarnessOptions<AppState = unknown, M extends UIMessage = UIMessage> =
  | AiSdkHarnessOptions<AppState, M>
  | PiHarnessOptions<AppState, M>
  | FxHarnessOptions

/** The harness types this package runs. */
export const HARNESS_TYPES = ['ai-sdk', 'pi', 'fx'] as const
