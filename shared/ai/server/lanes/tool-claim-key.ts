import { toolCallKey } from '../../ids.ts'

/** The claim of one logical call (see `toolCallKey`: provider IDs may repeat). */
export const toolClaimKey = (call: { generationId: string; toolCallId: string }): string =>
  `tool:${toolCallKey(call)}`
