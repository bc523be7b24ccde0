import type { UIMessage, UIMessageChunk } from 'ai'
import { copyIdMap, deleteId, getId, type IdMap, setId } from './id-map.ts'
import { mergeObjects } from './merge-objects.ts'
import { withParts } from './message-types.ts'
import { parsePartialJsonSync } from './partial-json.ts'

// Why this file exists: the AI SDK applies `UIMessageChunk`s to a `UIMessage`
// in `processUIMessageStream`, which is internal and asynchronous; `ai` only
// exports it wrapped in `readUIMessageStream()` (a stream of snapshots). The
// reducer is a synchronous fold, so this is the same state machine, case for
// case, over JSON-safe bookkeeping (part indexes instead of object references).
// A differential property test (test/shared/model/state/apply-chunks.test.ts) feeds the same
// chunks to `readUIMessageStream()` and requires the same message, so the
// transcript equals what `useChat` shows.
//
// Deliberate differences, both for a durable log that must never stop folding:
// - A chunk the SDK would reject (a delta for a part that never started) is
//   skipped; the SDK errors the stream and stops reading.
// - `start.messageId` never renames the message: A2 fixes the response
//   message ID when it requests the generation.
//
// Cost: one call copies the parts array of the current message once and the
// parts it touches; it never looks at other messages.

/** A tool call whose input is still streaming (the SDK's `partialToolCalls`). */
interface PartialToolCall {
  text: string
  inputEncoding?: 'json' | 'text'
  index: number
  toolName: string
  dynamic?: boolean
  title?: string
  toolMetadata?: unknown
}

/** What the SDK keeps beside the message while it streams, JSON-safe. */
export interface StreamCursor {
  /** Text chunk ID to the index of its part. */
  activeText: IdMap<number>
  activeReasoning: IdMap<number>
  partialToolCalls: IdMap<PartialToolCall>
}

export function emptyCursor(): StreamCursor {
  return { activeText: {}, activeReasoning: {}, partialToolCalls: {} }
}

type Part = { type: string; [key: string]: unknown }

const isToolPart = (part: Part): boolean =>
  part.type.startsWith('tool-') || part.type === 'dynamic-tool'
const isStaticToolPart = (part: Part): boolean => part.type.startsWith('tool-')
const staticToolName = (part: Part): string => part.type.split('-').slice(1).join('-')
const isResultState = (state: unknown): boolean =>
  state === 'output-available' || state === 'output-error'

interface ToolUpdate {
  toolCallId: string
  toolName: string
  state: string
  input?: unknown
  output?: unknown
  errorText?: unknown
  rawInput?: unknown
  inputEncoding?: unknown
  preliminary?: unknown
  providerExecuted?: unknown
  providerMetadata?: unknown
  title?: unknown
  toolMetadata?: unknown
}

/**
 * Applies streamed chunks to a message without mutating it, the way the AI
 * SDK's UI-message stream processing does.
 *
 * @example
 * const { message } = applyUIMessageChunks(
 *   { id: 'm1', role: 'assistant', parts: [] },
 *   emptyCursor(),
 *   [{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'Hi' }],
 * )
 * // message.parts: [{ type: 'text', text: 'Hi', state: 'streaming' }]
 */
export function applyUIMessageChunks<M extends UIMessage>(
  message: M,
  cursor: StreamCursor,
  chunks: readonly UIMessageChunk[],
): { message: M; cursor: StreamCursor } {
  const parts: Part[] = [...(message.parts as readonly Part[])]
  const owned = new Set<Part>()
  let metadata = message.metadata
  let activeText = copyIdMap(cursor.activeText)
  let activeReasoning = copyIdMap(cursor.activeReasoning)
  let partialToolCalls = copyIdMap(cursor.partialToolCalls)

  const own = (index: number): Part => {
    const part = parts[index] as Part
    if (owned.has(part)) return part
    const copy = { ...part }
    parts[index] = copy
    owned.add(copy)
    return copy
  }
  const push = (part: Part): number => {
    owned.add(part)
    return parts.push(part) - 1
  }
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
  const findToolInvocation = (toolCallId: string): number => {
    const inStep = findInCurrentStep((part) => isToolPart(part) && part.toolCallId === toolCallId)
    if (inStep >= 0) return inStep
    for (let index = parts.length - 1; index >= 0; index--) {
      const part = parts[index] as Part
      if (isToolPart(part) && part.toolCallId === toolCallId) return index
    }
    return -1
  }

  const writeToolFields = (part: Part, options: ToolUpdate, dynamic: boolean): void => {
    part.state = options.state
    if (dynamic) part.toolName = options.toolName
    else part.type = `tool-${options.toolName}`
    part.input = options.input
    part.output = options.output
    part.errorText = options.errorText
    part.rawInput = options.rawInput
    if (options.inputEncoding != null) part.inputEncoding = options.inputEncoding
    else delete part.inputEncoding
    part.preliminary = options.preliminary
    if (options.title !== undefined) part.title = options.title
    if (options.toolMetadata !== undefined) part.toolMetadata = options.toolMetadata
    part.providerExecuted = options.providerExecuted ?? part.providerExecuted
    if (options.providerMetadata != null) {
      if (isResultState(options.state)) part.resultProviderMetadata = options.providerMetadata
      else part.callProviderMetadata = options.providerMetadata
    }
  }

  const newToolPart = (options: ToolUpdate, dynamic: boolean): Part => {
    const metadataKey =
      options.providerMetadata == null
        ? {}
        : isResultState(options.state)
          ? { resultProviderMetadata: options.providerMetadata }
          : { callProviderMetadata: options.providerMetadata }
    if (dynamic) {
      return {
        type: 'dynamic-tool',
        toolName: options.toolName,
        toolCallId: options.toolCallId,
        state: options.state,
        input: options.input,
        ...(options.inputEncoding != null ? { inputEncoding: options.inputEncoding } : {}),
        output: options.output,
        errorText: options.errorText,
        preliminary: options.preliminary,
        providerExecuted: options.providerExecuted,
        title: options.title,
        ...(options.toolMetadata !== undefined ? { toolMetadata: options.toolMetadata } : {}),
        ...metadataKey,
      }
    }
    return {
      type: `tool-${options.toolName}`,
      toolCallId: options.toolCallId,
      state: options.state,
      title: options.title,
      ...(options.toolMetadata !== undefined ? { toolMetadata: options.toolMetadata } : {}),
      input: options.input,
      ...(options.inputEncoding != null ? { inputEncoding: options.inputEncoding } : {}),
      output: options.output,
      rawInput: options.rawInput,
      errorText: options.errorText,
      providerExecuted: options.providerExecuted,
      preliminary: options.preliminary,
      ...metadataKey,
    }
  }

  // The SDK's updateToolPart / updateDynamicToolPart.
  const updateTool = (options: ToolUpdate, dynamic: boolean, existing?: number): void => {
    const index =
      existing ??
      findInCurrentStep((part) =>
        dynamic
          ? part.type === 'dynamic-tool' && part.toolCallId === options.toolCallId
          : isStaticToolPart(part) && part.toolCallId === options.toolCallId,
      )
    if (index >= 0) writeToolFields(own(index), options, dynamic)
    else push(newToolPart(options, dynamic))
  }

  for (const chunk of chunks) {
    switch (chunk.type) {
      case 'text-start': {
        const index = push({
          type: 'text',
          text: '',
          providerMetadata: chunk.providerMetadata,
          state: 'streaming',
        })
        setId(activeText, chunk.id, index)
        break
      }
      case 'text-delta': {
        const index = getId(activeText, chunk.id)
        if (index === undefined) break
        const part = own(index)
        part.text = `${part.text as string}${chunk.delta}`
        part.providerMetadata = chunk.providerMetadata ?? part.providerMetadata
        break
      }
      case 'text-end': {
        const index = getId(activeText, chunk.id)
        if (index === undefined) break
        const part = own(index)
        part.state = 'done'
        if (chunk.citations != null) part.citations = chunk.citations
        part.providerMetadata = chunk.providerMetadata ?? part.providerMetadata
        deleteId(activeText, chunk.id)
        break
      }
      case 'custom':
        push({ type: 'custom', kind: chunk.kind, providerMetadata: chunk.providerMetadata })
        break
      case 'reasoning-start': {
        const index = push({
          type: 'reasoning',
          id: chunk.id,
          text: '',
          providerMetadata: chunk.providerMetadata,
          state: 'streaming',
        })
        setId(activeReasoning, chunk.id, index)
        break
      }
      case 'reasoning-delta': {
        const index = getId(activeReasoning, chunk.id)
        if (index === undefined) break
        const part = own(index)
        part.text = `${part.text as string}${chunk.delta}`
        part.providerMetadata = chunk.providerMetadata ?? part.providerMetadata
        break
      }
      case 'reasoning-end': {
        const index = getId(activeReasoning, chunk.id)
        if (index === undefined) break
        const part = own(index)
        part.providerMetadata = chunk.providerMetadata ?? part.providerMetadata
        part.state = 'done'
        deleteId(activeReasoning, chunk.id)
        break
      }
      case 'file':
      case 'reasoning-file':
        push({
          type: chunk.type,
          mediaType: chunk.mediaType,
          url: chunk.url,
          ...(chunk.providerMetadata != null ? { providerMetadata: chunk.providerMetadata } : {}),
        })
        break
      case 'source-url':
        push({
          type: 'source-url',
          sourceId: chunk.sourceId,
          url: chunk.url,
          title: chunk.title,
          providerMetadata: chunk.providerMetadata,
        })
        break
      case 'source-document':
        push({
          type: 'source-document',
          sourceId: chunk.sourceId,
          mediaType: chunk.mediaType,
          title: chunk.title,
          filename: chunk.filename,
          providerMetadata: chunk.providerMetadata,
        })
        break
      case 'tool-input-start': {
        let staticTools = 0
        for (let index = currentStepStart(); index < parts.length; index++) {
          if (isStaticToolPart(parts[index] as Part)) staticTools++
        }
        setId(partialToolCalls, chunk.toolCallId, {
          text: '',
          inputEncoding: chunk.inputEncoding,
          toolName: chunk.toolName,
          index: staticTools,
          dynamic: chunk.dynamic,
          title: chunk.title,
          toolMetadata: chunk.toolMetadata,
        })
        updateTool(
          {
            toolCallId: chunk.toolCallId,
            toolName: chunk.toolName,
            state: 'input-streaming',
            inputEncoding: chunk.inputEncoding,
            input: undefined,
            providerExecuted: chunk.providerExecuted,
            title: chunk.title,
            toolMetadata: chunk.toolMetadata,
            providerMetadata: chunk.providerMetadata,
          },
          chunk.dynamic === true,
        )
        break
      }
      case 'tool-input-delta': {
        const partial = getId(partialToolCalls, chunk.toolCallId)
        if (partial === undefined) break
        const text = partial.text + chunk.inputTextDelta
        setId(partialToolCalls, chunk.toolCallId, { ...partial, text })
        updateTool(
          {
            toolCallId: chunk.toolCallId,
            toolName: partial.toolName,
            state: 'input-streaming',
            inputEncoding: partial.inputEncoding,
            input: partial.inputEncoding === 'text' ? text : parsePartialJsonSync(text),
            rawInput: text,
            title: partial.title,
            toolMetadata: partial.toolMetadata,
          },
          partial.dynamic === true,
        )
        break
      }
      case 'tool-input-available':
        updateTool(
          {
            toolCallId: chunk.toolCallId,
            toolName: chunk.toolName,
            state: 'input-available',
            input: chunk.input,
            providerExecuted: chunk.providerExecuted,
            providerMetadata: chunk.providerMetadata,
            title: chunk.title,
            toolMetadata: chunk.toolMetadata,
          },
          chunk.dynamic === true,
        )
        break
      case 'tool-input-error': {
        const existing = findInCurrentStep(
          (part) => isToolPart(part) && part.toolCallId === chunk.toolCallId,
        )
        const dynamic =
          existing >= 0 ? (parts[existing] as Part).type === 'dynamic-tool' : chunk.dynamic === true
        updateTool(
          {
            toolCallId: chunk.toolCallId,
            toolName: chunk.toolName,
            state: 'output-error',
            input: chunk.input,
            errorText: chunk.errorText,
            providerExecuted: chunk.providerExecuted,
            providerMetadata: chunk.providerMetadata,
            toolMetadata: chunk.toolMetadata,
          },
          dynamic,
        )
        break
      }
      case 'tool-approval-request': {
        const index = findToolInvocation(chunk.toolCallId)
        if (index < 0) break
        const part = own(index)
        part.state = 'approval-requested'
        part.approval = {
          id: chunk.approvalId,
          ...(chunk.approvalDescriptor != null ? { descriptor: chunk.approvalDescriptor } : {}),
          ...(Object.hasOwn(chunk, 'inputSchemaInput')
            ? { inputSchemaInput: chunk.inputSchemaInput }
            : {}),
          ...(chunk.reason != null ? { requestReason: chunk.reason } : {}),
          ...(chunk.isAutomatic === true ? { isAutomatic: true } : {}),
          ...(chunk.signature != null ? { signature: chunk.signature } : {}),
        }
        break
      }
      case 'tool-approval-response': {
        let index = -1
        for (let i = 0; i < parts.length; i++) {
          const part = parts[i] as Part
          if (
            isToolPart(part) &&
            (part.approval as { id?: string } | undefined)?.id === chunk.approvalId
          ) {
            index = i
            break
          }
        }
        if (index < 0) break
        const part = own(index)
        const approval = (part.approval as object | undefined) ?? { id: chunk.approvalId }
        part.state = 'approval-responded'
        part.approval = {
          ...approval,
          id: chunk.approvalId,
          approved: chunk.approved,
          ...(chunk.reason != null ? { reason: chunk.reason } : {}),
        }
        if (chunk.providerExecuted != null) part.providerExecuted = chunk.providerExecuted
        if (chunk.providerMetadata != null) part.callProviderMetadata = chunk.providerMetadata
        break
      }
      case 'tool-output-denied': {
        const index = findToolInvocation(chunk.toolCallId)
        if (index < 0) break
        own(index).state = 'output-denied'
        break
      }
      case 'tool-output-available':
      case 'tool-output-error': {
        const index = findToolInvocation(chunk.toolCallId)
        if (index < 0) break
        const part = parts[index] as Part
        const dynamic = part.type === 'dynamic-tool'
        const available = chunk.type === 'tool-output-available'
        updateTool(
          {
            toolCallId: chunk.toolCallId,
            toolName: dynamic ? (part.toolName as string) : staticToolName(part),
            state: available ? 'output-available' : 'output-error',
            input: part.input,
            ...(available
              ? { output: chunk.output, preliminary: chunk.preliminary }
              : {
                  errorText: chunk.errorText,
                  ...(dynamic ? {} : { rawInput: part.rawInput }),
                }),
            providerExecuted: chunk.providerExecuted,
            providerMetadata: chunk.providerMetadata,
            title: part.title,
            toolMetadata: chunk.toolMetadata ?? part.toolMetadata,
          },
          dynamic,
          index,
        )
        break
      }
      case 'steering-message':
        push({ type: 'steering-message', id: chunk.id, parts: chunk.parts })
        break
      case 'start-step':
        push({ type: 'step-start' })
        break
      case 'reset-step': {
        activeText = {}
        activeReasoning = {}
        partialToolCalls = {}
        parts.length = currentStepStart()
        break
      }
      case 'start':
      case 'finish':
      case 'message-metadata':
        if (chunk.messageMetadata != null) {
          metadata =
            metadata != null ? mergeObjects(metadata, chunk.messageMetadata) : chunk.messageMetadata
        }
        break
      case 'finish-step':
      case 'error':
      case 'abort':
        break
      default: {
        const data = chunk as { type: string; id?: string; data: unknown; transient?: boolean }
        if (!data.type.startsWith('data-') || data.transient) break
        const existing =
          data.id != null
            ? parts.findIndex((part) => part.type === data.type && part.id === data.id)
            : -1
        if (existing >= 0) own(existing).data = data.data
        else push({ ...data })
      }
    }
  }

  const next = withParts<M>(message, parts)
  if (metadata !== undefined || 'metadata' in message) next.metadata = metadata
  return { message: next, cursor: { activeText, activeReasoning, partialToolCalls } }
}
