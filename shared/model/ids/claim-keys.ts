import { toolCallKey } from './ids.ts'

// The claims work runs under (see the store's claims): the controller names
// the claims its decisions end, and the workers take them.

/** The claim of a model step: its request, whatever attempt serves it. */
export const generationClaimKey = (requestId: string): string => `gen:${requestId}`

/** The claim of one logical call (see `toolCallKey`: provider IDs may repeat). */
export const toolClaimKey = (call: { generationId: string; toolCallId: string }): string =>
  `tool:${toolCallKey(call)}`

/** The wake-up key of a tool run: the call's `toolCallKey`, or this one shared lane with `toolLane: 'tools'`. */
export const SERIAL_TOOL_KEY = 'serial'

/** How long a claim lasts unless its holder renews it (the agent's `claimTtlMs` default). */
export const DEFAULT_CLAIM_TTL_MS = 30_000
