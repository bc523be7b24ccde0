import type { LanguageModelUsage } from 'ai'

/** The data part type the reducer uses to mark a compaction in a response. */
export const COMPACTION_PART_TYPE = 'data-a2-compaction'

export type CompactionStatus = 'running' | 'completed' | 'failed' | 'interrupted'

export interface CompactionData {
  status: CompactionStatus
  inputTokens?: number
  thresholdTokens?: number
  summary?: string
  usage?: LanguageModelUsage
}

/**
 * A compaction marker in an assistant response. It lives in state (server
 * renders, reloads and other tabs see it) and never enters model context.
 */
export interface CompactionPart {
  type: typeof COMPACTION_PART_TYPE
  id: string
  data: CompactionData
}

/**
 * Narrows a transcript part to the compaction marker, even when the message
 * type declares its own data parts.
 *
 * @example
 * message.parts.filter(isCompactionPart).map((part) => part.data.status)
 */
export function isCompactionPart(part: { type: string }): part is CompactionPart {
  return part.type === COMPACTION_PART_TYPE
}
