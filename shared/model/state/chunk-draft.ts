import type { UIMessage, UIMessageChunk } from 'ai'
import { copyIdMap, type IdMap } from './id-map.ts'

// The working copy that `applyUIMessageChunks` folds chunks into: the parts
// array copied once, each touched part copied once (`own`), and the SDK's
// bookkeeping beside the message. The chunk families (apply-*-chunks.ts) all
// write through it, so none of them mutates the message it was given.

export type Part = { type: string; [key: string]: unknown }

/** The chunk of one `type`, narrowed from the SDK's union. */
export type ChunkOf<T extends UIMessageChunk['type']> = Extract<UIMessageChunk, { type: T }>

/** A tool call whose input is still streaming (the SDK's `partialToolCalls`). */
export interface PartialToolCall {
  text: string
  inputEncoding?: 'json' | 'text'
  index: number
  toolName: string
  dynamic?: boolean
  title?: string
  toolMetadata?: unknown
}

export interface ChunkDraft {
  readonly parts: Part[]
  metadata: unknown
  /** Text chunk ID to the index of its part. */
  activeText: IdMap<number>
  activeReasoning: IdMap<number>
  partialToolCalls: IdMap<PartialToolCall>
  /** The part at `index`, copied on first write so the input stays untouched. */
  own(index: number): Part
  /** Appends a new part and returns its index. */
  push(part: Part): number
  /** The index of the first part after the last `step-start`. */
  currentStepStart(): number
  findInCurrentStep(predicate: (part: Part) => boolean): number
  /** The tool part of `toolCallId`, in the current step first, then the latest anywhere. */
  findToolInvocation(toolCallId: string): number
}

export const isToolPart = (part: Part): boolean =>
  part.type.startsWith('tool-') || part.type === 'dynamic-tool'
export const isStaticToolPart = (part: Part): boolean => part.type.startsWith('tool-')
export const staticToolName = (part: Part): string => part.type.split('-').slice(1).join('-')

export function openDraft(
  message: UIMessage,
  cursor: {
    activeText: IdMap<number>
    activeReasoning: IdMap<number>
    partialToolCalls: IdMap<PartialToolCall>
  },
): ChunkDraft {
  const parts: Part[] = [...(message.parts as readonly Part[])]
  const owned = new Set<Part>()
  const currentStepStart = (): number => {
    let index = parts.length - 1
    while (index >= 0 && (parts[index] as Part).type !== 'step-start') index--
    return index + 1
  }
  const findInCurrentStep = (predicate: (part: Part) => boolean): number => {
    for (let index = currentStepStart(); index < parts.length; index++) {
      if (predicate(parts[index] as Part)) return index
    }
    return -1
  }
  return {
    parts,
    metadata: message.metadata,
    activeText: copyIdMap(cursor.activeText),
    activeReasoning: copyIdMap(cursor.activeReasoning),
    partialToolCalls: copyIdMap(cursor.partialToolCalls),
    own(index) {
      const part = parts[index] as Part
      if (owned.has(part)) return part
      const copy = { ...part }
      parts[index] = copy
      owned.add(copy)
      return copy
    },
    push(part) {
      owned.add(part)
      return parts.push(part) - 1
    },
    currentStepStart,
    findInCurrentStep,
    findToolInvocation(toolCallId) {
      const matches = (part: Part): boolean => isToolPart(part) && part.toolCallId === toolCallId
      const inStep = findInCurrentStep(matches)
      if (inStep >= 0) return inStep
      for (let index = parts.length - 1; index >= 0; index--) {
        if (matches(parts[index] as Part)) return index
      }
      return -1
    },
  }
}
