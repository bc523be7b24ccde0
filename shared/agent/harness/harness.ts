import type { ToolSet, UIMessageChunk } from 'ai'
import type { ResolvedModel } from '../model-step/resolve-model.ts'
import type { GenerateContext } from '../model-step/step-context.ts'

/**
 * The agent's loop as a port: what the generation lane drives for one model
 * step, whichever loop the agent runs (`harness.type`). A step is one durable
 * A2 generation: the lane claims it, prepares its prompt (compaction
 * included), hands it to the harness, and writes what the harness streams as
 * progress, each tool call as soon as its input is complete (with its
 * approval request), and the step's completion. Everything durable stays
 * A2's for every harness: progress, tool execution (the tools lane),
 * approvals, continuation (the controller requests the next step), Stop and
 * Pause (the step's `signal`), failure and retry, recovery from the log.
 *
 * A loop that makes several model calls of its own per turn is re-entered
 * once per step from the log (Pi's); a loop that runs a whole turn with its
 * own tools (FX over ACP) is one step, its tool calls provider-executed.
 */
export interface Harness {
  readonly type: string
  /**
   * Whether the tool inputs the stream carries are checked already (the AI
   * SDK's `streamText` checks them); A2 checks the others' against the
   * agent's tools before recording the call.
   */
  readonly validatesToolInput: boolean
  /**
   * Tools the loop brings besides the agent's `tools`, as A2's tools lane
   * runs them (Pi's `AgentTool`s, wrapped).
   */
  readonly tools: ToolSet
  /** Whether automatic compaction is on when the options do not say (off for a custom step). */
  readonly compactsByDefault: boolean
  /** One model step: its chunks, writing the response message, and its usage when known. */
  step(context: HarnessStepContext): Promise<HarnessStep>
  /** Ends what the loop keeps open between steps (FX: its agent processes); `runtime.close()` calls it. */
  close?(): void
}

/** What a harness gets for one step: the custom-`generate` context and A2's view of the turn. */
export interface HarnessStepContext extends GenerateContext {
  /** The step's model as A2 resolved it (its ID in the log, reasoning, provider options). */
  resolved: ResolvedModel
  /**
   * The inputs the turn admitted, earlier steering first and the generating
   * input last: what a loop's steering hook hands over at the turn's first
   * step (`event.payload.step === 1`).
   */
  turnInputIds: readonly string[]
  /** Durable approvals for calls a loop runs itself (an ACP permission request). */
  approvals: HarnessApprovals
}

/** One step as a harness streams it. */
export interface HarnessStep {
  /** `UIMessageChunk`s of exactly one model step, writing `event.payload.responseMessageId`. */
  stream: ReadableStream<UIMessageChunk> | AsyncIterable<UIMessageChunk>
  /** The step's token usage, when the loop reports it (read after the stream ends). */
  usage?: PromiseLike<unknown>
}

/** A call a loop asks the user to allow before it runs it itself. */
export interface HarnessApprovalRequest {
  toolCallId: string
  toolName: string
  input: unknown
}

/** The user's answer, from the log: `approved`, or a denial with its reason. */
export type HarnessApprovalDecision = { approved: true } | { approved: false; reason?: string }

export interface HarnessApprovals {
  /**
   * Records `ai.approval.requested` for a call the stream has already
   * announced (`tool-input-available` with `providerExecuted: true`) and
   * resolves with the user's answer once the log has it; rejects when the
   * step's signal aborts (Stop, Pause now, a lost claim).
   */
  request(call: HarnessApprovalRequest): Promise<HarnessApprovalDecision>
}
