import type { UIMessage, UIMessageChunk } from 'ai'
import { z } from 'zod'

// Messages and chunks are checked for shape only (an ID, a role, typed parts;
// a typed chunk): this schema is isomorphic and sync, and keeps the AI SDK's
// schemas out of the browser. An agent checks each message a command carries
// with the AI SDK's own UI message schemas as well, on every append
// (shared/agent/session/message-check.ts). The reducer never trusts more than this
// envelope: a log written before that check may hold anything it allows.

// The `as unknown as` below: a loose schema checks the envelope only, and
// claims the SDK's type for what passes, on the SDK's own validation.
const part = z.looseObject({ type: z.string().min(1) })

export const uiMessageSchema = z.looseObject({
  id: z.string().min(1),
  role: z.enum(['system', 'user', 'assistant']),
  metadata: z.unknown().optional(),
  parts: z.array(part),
}) as unknown as z.ZodType<UIMessage> // the envelope, checked; see above

export const uiMessageChunkSchema = z.looseObject({
  type: z.string().min(1),
}) as unknown as z.ZodType<UIMessageChunk> // likewise
