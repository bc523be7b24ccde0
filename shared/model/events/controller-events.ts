import { z } from 'zod'

// Events the controller writes in answer to commands and durable facts.

const id = z.string().min(1)

/** An input leaves the inbox (or its command) and enters the transcript. */
export const messageCreatedSchema = z.object({
  inputId: id,
  /** The command whose message is the accepted content: the original or the last edit. */
  commandId: id,
  /** The turn it starts or joins as context; `null` for passive input admitted while idle. */
  turnId: id.nullable(),
})

/** One accepted state change. The reducer applies them without deciding anything. */
const controlChangeSchema = z.discriminatedUnion('op', [
  z.object({
    op: z.literal('inbox.add'),
    inputId: id,
    beforeId: id.nullable(),
    generate: z.boolean(),
    afterStepOf: id.nullable(),
  }),
  z.object({ op: z.literal('inbox.edit'), inputId: id }),
  z.object({ op: z.literal('inbox.move'), inputId: id, beforeId: id.nullable() }),
  z.object({ op: z.literal('inbox.remove'), inputId: id }),
  /** Send now: the item steers `afterStepOf` (or none), generates, and moves before `beforeId`. */
  z.object({
    op: z.literal('inbox.steer'),
    inputId: id,
    beforeId: id.nullable(),
    afterStepOf: id.nullable(),
  }),
  z.object({
    op: z.literal('turn.start'),
    turnId: id,
    inputId: id,
    contextInputIds: z.array(id),
    responseMessageId: id,
  }),
  z.object({ op: z.literal('turn.handoff'), turnId: id }),
  /** Ends the turn at once. `frontier`: the log index the client saw (Stop), or `null`. */
  z.object({
    op: z.literal('turn.stop'),
    turnId: id,
    frontier: z.number().int().nonnegative().nullable(),
    reason: z.enum(['stopped', 'interrupted']),
  }),
  z.object({ op: z.literal('turn.retry'), turnId: id, retryId: id }),
  z.object({ op: z.literal('turn.paused'), turnId: id }),
  z.object({ op: z.literal('pause'), when: z.enum(['after-turn', 'now']) }),
  z.object({ op: z.literal('resume') }),
  z.object({
    op: z.literal('approval.respond'),
    approvalId: id,
    approved: z.boolean(),
    reason: z.string().optional(),
  }),
  z.object({
    op: z.literal('input.request'),
    inputRequestId: id,
    request: z.unknown(),
    turnId: id.nullable(),
    messageId: id.optional(),
    generationId: id.optional(),
    toolCallId: id.optional(),
  }),
  z.object({ op: z.literal('input.respond'), inputRequestId: id, value: z.unknown() }),
  z.object({ op: z.literal('input.close'), inputRequestId: id }),
])

export type ControlChange = z.output<typeof controlChangeSchema>

/** Accepted state changes, from a command (`commandId`) or from the controller's own progress. */
export const controlCommittedSchema = z.object({
  commandId: id.optional(),
  changes: z.array(controlChangeSchema),
})

const REJECTION_REASONS = [
  'not-pending',
  'stale-turn',
  'role-mismatch',
  'not-user-input',
  'stale-approval',
  'stale-input',
  'stale-owner',
  'stale-tool-call',
  'not-failed',
  'not-paused',
  'session-closed',
  'invalid-command',
] as const

export type RejectionReason = (typeof REJECTION_REASONS)[number]

/** The command receipt: `commandId` is the submitted event's ID. */
export const controlDecidedSchema = z.object({
  commandId: id,
  action: z.string(),
  outcome: z.enum(['applied', 'rejected']),
  reason: z.enum(REJECTION_REASONS).optional(),
})

/** A model step is due. The event's ID is the `requestId`. */
export const generationRequestedSchema = z.object({
  requestId: id,
  turnId: id,
  responseMessageId: id,
  step: z.number().int().positive(),
  retryId: id.optional(),
})

/** The turn's response ended; the turn is over. */
export const messageCompletedSchema = z.object({
  turnId: id,
  messageId: id,
  reason: z.enum(['finished', 'max-steps', 'handoff']),
})
