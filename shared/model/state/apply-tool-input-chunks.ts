import type { ChunkDraft, ChunkOf, Part } from './chunk-draft.ts'
import { isStaticToolPart, isToolPart } from './chunk-draft.ts'
import { getId, setId } from './id-map.ts'
import { parsePartialJsonSync } from './partial-json.ts'
import { updateTool } from './tool-part-update.ts'

// Tool-call input chunks: a start opens an input-streaming part and its partial
// call, deltas grow the raw input text (the part's `input` is its best-effort
// parse, as `useChat` shows it), then the input arrives whole or fails.

type ToolInputChunk = ChunkOf<
  'tool-input-start' | 'tool-input-delta' | 'tool-input-available' | 'tool-input-error'
>

function startToolInput(draft: ChunkDraft, chunk: ChunkOf<'tool-input-start'>): void {
  let staticTools = 0
  for (let index = draft.currentStepStart(); index < draft.parts.length; index++) {
    if (isStaticToolPart(draft.parts[index] as Part)) staticTools++
  }
  setId(draft.partialToolCalls, chunk.toolCallId, {
    text: '',
    inputEncoding: chunk.inputEncoding,
    toolName: chunk.toolName,
    index: staticTools,
    dynamic: chunk.dynamic,
    title: chunk.title,
    toolMetadata: chunk.toolMetadata,
  })
  updateTool(
    draft,
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
}

function growToolInput(draft: ChunkDraft, chunk: ChunkOf<'tool-input-delta'>): void {
  const partial = getId(draft.partialToolCalls, chunk.toolCallId)
  if (partial === undefined) return
  const text = partial.text + chunk.inputTextDelta
  setId(draft.partialToolCalls, chunk.toolCallId, { ...partial, text })
  updateTool(
    draft,
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
}

function failToolInput(draft: ChunkDraft, chunk: ChunkOf<'tool-input-error'>): void {
  const existing = draft.findInCurrentStep(
    (part) => isToolPart(part) && part.toolCallId === chunk.toolCallId,
  )
  const dynamic =
    existing >= 0 ? (draft.parts[existing] as Part).type === 'dynamic-tool' : chunk.dynamic === true
  updateTool(
    draft,
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
}

export function applyToolInputChunk(draft: ChunkDraft, chunk: ToolInputChunk): void {
  switch (chunk.type) {
    case 'tool-input-start':
      startToolInput(draft, chunk)
      break
    case 'tool-input-delta':
      growToolInput(draft, chunk)
      break
    case 'tool-input-available':
      updateTool(
        draft,
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
    case 'tool-input-error':
      failToolInput(draft, chunk)
      break
  }
}
