import type { UIMessage } from 'ai'
import type { HarnessSettings } from '../../agent/harness/harness-options.ts'

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
 * Pi's loop (`@mariozechner/pi-agent-core`, an optional peer: install it),
 * as `piHarness()` takes it: each model call of Pi's `agentLoop` is one
 * durable A2 generation, its `streamFn` running on the agent's `model`;
 * Pi's tools and the agent's `tools` run in A2's tools lane; steering
 * reaches Pi's loop through its `getSteeringMessages` at the step boundary.
 */
export interface PiHarnessOptions<AppState = unknown, M extends UIMessage = UIMessage>
  extends HarnessSettings<AppState, M> {
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
