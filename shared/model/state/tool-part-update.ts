import type { ChunkDraft, Part } from './chunk-draft.ts'
import { isStaticToolPart } from './chunk-draft.ts'

// The SDK's updateToolPart / updateDynamicToolPart: every tool chunk ends in
// one of these, which either rewrites the call's part in place or appends it.
// Field order in `newToolPart` follows the SDK's so snapshots compare equal.

export interface ToolUpdate {
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

const isResultState = (state: unknown): boolean =>
  state === 'output-available' || state === 'output-error'

function writeToolFields(part: Part, options: ToolUpdate, dynamic: boolean): void {
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

function providerMetadataField(options: ToolUpdate): Record<string, unknown> {
  if (options.providerMetadata == null) return {}
  return isResultState(options.state)
    ? { resultProviderMetadata: options.providerMetadata }
    : { callProviderMetadata: options.providerMetadata }
}

function newDynamicToolPart(options: ToolUpdate): Part {
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
    ...providerMetadataField(options),
  }
}

function newStaticToolPart(options: ToolUpdate): Part {
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
    ...providerMetadataField(options),
  }
}

/**
 * Writes a tool call's new state into its part (the one at `existing`, else the
 * call's part in the current step), or appends a new part when there is none.
 */
export function updateTool(
  draft: ChunkDraft,
  options: ToolUpdate,
  dynamic: boolean,
  existing?: number,
): void {
  const index =
    existing ??
    draft.findInCurrentStep((part) =>
      dynamic
        ? part.type === 'dynamic-tool' && part.toolCallId === options.toolCallId
        : isStaticToolPart(part) && part.toolCallId === options.toolCallId,
    )
  if (index >= 0) writeToolFields(draft.own(index), options, dynamic)
  else draft.push(dynamic ? newDynamicToolPart(options) : newStaticToolPart(options))
}
