import { z } from 'zod'
import { uiMessageChunkSchema } from './message-schema.ts'

// Events the runtime writes while it runs model steps and tools. Their
// effect on AIState is the reducer's; who writes them is the runtime's.

const id = z.string().min(1)
const usage = z.record(z.string(), z.unknown())

/** One attempt of a requested model step. */
export const generationStartedSchema = z.object({
  generationId: id,
  requestId: id,
  turnId: id,
  responseMessageId: id,
  step: z.number().int().positive(),
  attempt: z.number().int().positive(),
  modelId: z.string().optional(),
  /** The agent version whose code runs this attempt (`agent({ version })`, or derived). */
  version: z.string().optional(),
})

/** Streamed output, batched. Applied to the response as the AI SDK would. */
export const generationProgressSchema = z.object({
  generationId: id,
  chunks: z.array(uiMessageChunkSchema),
})

/** Closes a model step. */
/**
 * On a step's end or a tool's result: the controller's decision at this
 * index is in the same append (the worker took the rounds admission would
 * have, controller/decision-after.ts) and left it nothing to do, so the
 * event does not wake admission.
 */
const decided = z.literal(true).optional()

export const generationCompletedSchema = z.object({
  generationId: id,
  requestId: id,
  outcome: z.enum(['success', 'failed', 'interrupted']),
  finishReason: z.string().optional(),
  error: z.string().optional(),
  usage: usage.optional(),
  /** The model and A2's estimate of the prompt's tokens, to calibrate the next estimate. */
  modelId: z.string().optional(),
  estimatedInputTokens: z.number().nonnegative().optional(),
  decided,
})

/** An incomplete attempt, marked before its replacement starts. */
export const generationSupersededSchema = z.object({
  generationId: id,
  requestId: id,
  reason: z.string().optional(),
})

/** A tool call the step produced, accepted for execution or approval. */
export const toolCalledSchema = z.object({
  toolCallId: id,
  toolName: z.string().min(1),
  generationId: id,
  messageId: id,
  turnId: id,
  providerExecuted: z.boolean().optional(),
  /** A provider tool that may answer later, through `inputs.toolResult()`. */
  deferredResult: z.boolean().optional(),
})

export const approvalRequestedSchema = z.object({
  approvalId: id,
  toolCallId: id,
  toolName: z.string().min(1),
  generationId: id,
  messageId: id,
  turnId: id,
  input: z.unknown().optional(),
  reason: z.string().optional(),
})

/** A tool's outcome. `preliminary` output keeps the tool running. */
export const toolResultSchema = z.object({
  toolCallId: id,
  generationId: id,
  messageId: id,
  outcome: z.enum(['output', 'error', 'denied']),
  output: z.unknown().optional(),
  errorText: z.string().optional(),
  preliminary: z.boolean().optional(),
  reason: z.string().optional(),
  providerExecuted: z.boolean().optional(),
  providerMetadata: z.record(z.string(), z.unknown()).optional(),
  /** The agent version whose code ran the tool (absent where A2 settled the call without running it). */
  version: z.string().optional(),
  decided,
})

/**
 * A durable step inside a tool or handler (`ctx.step(name, fn)`) finished:
 * its result, so a retried run of the same `scope` (the work's claim key)
 * gets it back instead of running the step again.
 */
export const stepCompletedSchema = z.object({
  scope: id,
  name: z.string().min(1),
  output: z.unknown().optional(),
})

/** Tool work cut short (Pause now, Stop) without a terminal result; it may run again. */
export const toolInterruptedSchema = z.object({
  toolCallId: id,
  generationId: id,
  reason: z.string().optional(),
})

export const modelMetadataRequestedSchema = z.object({ modelId: z.string().min(1) })

export const modelMetadataResolvedSchema = z.object({
  modelId: z.string().min(1),
  status: z.enum(['resolved', 'unavailable']),
  contextWindow: z.number().int().positive().optional(),
  maxOutputTokens: z.number().int().positive().optional(),
})

export const sessionCreatedSchema = z.object({}).loose()
export const sessionClosedSchema = z.object({ reason: z.string().optional() })

export const compactionStartedSchema = z.object({
  compactionId: id,
  messageId: id,
  inputTokens: z.number().int().nonnegative().optional(),
  thresholdTokens: z.number().int().nonnegative().optional(),
})

export const compactionCompletedSchema = z.object({
  compactionId: id,
  summary: z.string(),
  upToMessageId: id,
  usage: usage.optional(),
})

export const compactionFailedSchema = z.object({
  compactionId: id,
  error: z.string().optional(),
  status: z.enum(['failed', 'interrupted']),
})

/** A durable handler that kept failing and is no longer retried until woken again. */
export const handlerDeadLetteredSchema = z.object({
  lane: z.string().min(1),
  key: z.string().optional(),
  /** The generation lane's: the model step (request) it gave up on, which fails the turn. */
  requestId: z.string().min(1).optional(),
  error: z.string(),
  attempts: z.number().int().positive(),
})
