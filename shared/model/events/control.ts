import type { UIMessage } from 'ai'
import { z } from 'zod'
import { uiMessageSchema } from './message-schema.ts'

// `ai.control.requested`: every command a client or trusted server pushes.
// One event type, discriminated by `action`, so the log keeps commands in one
// order and the controller decides them one at a time.

const id = z.string().min(1)

/** Exactly one owner: the work a delayed interruption may stop. */
const interruptOwnerSchema = z.union([
  z.strictObject({ requestId: id, messageId: id }),
  z.strictObject({ generationId: id, responseMessageId: id }),
  z.strictObject({ approvalId: id }),
  z.strictObject({ inputRequestId: id }),
  z.strictObject({ toolCallId: id }),
])

export const controlRequestSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('message'), message: uiMessageSchema, generate: z.boolean() }),
  z.object({ action: z.literal('steer'), message: uiMessageSchema, afterStepOf: id.nullable() }),
  z.object({ action: z.literal('retry'), turnId: id, retryId: id }),
  z.object({ action: z.literal('stop'), turnId: id, frontier: z.number().int().nonnegative() }),
  z.object({ action: z.literal('interrupt'), owner: interruptOwnerSchema }),
  z.object({ action: z.literal('pause'), when: z.enum(['after-turn', 'now']) }),
  z.object({ action: z.literal('resume') }),
  z.object({ action: z.literal('queue.edit'), message: uiMessageSchema }),
  z.object({ action: z.literal('queue.move'), inputId: id, beforeId: id.nullable() }),
  z.object({ action: z.literal('queue.remove'), inputId: id }),
  z.object({ action: z.literal('queue.sendNow'), inputId: id, afterStepOf: id.nullable() }),
  z.object({
    action: z.literal('approval'),
    approvalId: id,
    toolCallId: id,
    messageId: id,
    generationId: id,
    approved: z.boolean(),
    reason: z.string().optional(),
  }),
  z.object({ action: z.literal('input'), inputRequestId: id, value: z.unknown() }),
  z.object({
    action: z.literal('requestInput'),
    inputRequestId: id,
    request: z.unknown(),
    turnId: id.optional(),
    messageId: id.optional(),
    generationId: id.optional(),
    toolCallId: id.optional(),
  }),
  z.object({
    action: z.literal('toolResult'),
    toolCallId: id,
    generationId: id,
    messageId: id,
    output: z.unknown().optional(),
    errorText: z.string().optional(),
    providerMetadata: z.record(z.string(), z.unknown()).optional(),
  }),
])

type Parsed = z.output<typeof controlRequestSchema>

/** A command payload; `M` types the messages it carries. */
export type ControlRequest<M extends UIMessage = UIMessage> = Parsed extends infer R
  ? R extends { message: UIMessage }
    ? Omit<R, 'message'> & { message: M }
    : R
  : never

export type ControlAction = Parsed['action']
