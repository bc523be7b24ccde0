import type { UIMessage, UIMessageChunk } from 'ai'
import { z } from 'zod'

// Messages and chunks are checked for shape only (an ID, a role, typed parts;
// a typed chunk). Their full validation belongs to the AI SDK and to the
// app's own message type; the reducer never trusts more than this.

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
