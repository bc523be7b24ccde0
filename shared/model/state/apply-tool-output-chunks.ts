import type { ChunkDraft, ChunkOf, Part } from './chunk-draft.ts'
import { isToolPart, staticToolName } from './chunk-draft.ts'
import { updateTool } from './tool-part-update.ts'

// Chunks that follow a tool call's input: the approval round trip, a denial,
// and the output or its error. Each finds the call's part and is skipped when
// there is none.

type ToolOutputChunk = ChunkOf<
  | 'tool-approval-request'
  | 'tool-approval-response'
  | 'tool-output-denied'
  | 'tool-output-available'
  | 'tool-output-error'
>

function requestApproval(draft: ChunkDraft, chunk: ChunkOf<'tool-approval-request'>): void {
  const index = draft.findToolInvocation(chunk.toolCallId)
  if (index < 0) return
  const part = draft.own(index)
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
}

function respondToApproval(draft: ChunkDraft, chunk: ChunkOf<'tool-approval-response'>): void {
  const index = draft.parts.findIndex(
    (part) =>
      isToolPart(part) && (part.approval as { id?: string } | undefined)?.id === chunk.approvalId,
  )
  if (index < 0) return
  const part = draft.own(index)
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
}

function settleToolOutput(
  draft: ChunkDraft,
  chunk: ChunkOf<'tool-output-available' | 'tool-output-error'>,
): void {
  const index = draft.findToolInvocation(chunk.toolCallId)
  if (index < 0) return
  const part = draft.parts[index] as Part
  const dynamic = part.type === 'dynamic-tool'
  updateTool(
    draft,
    {
      toolCallId: chunk.toolCallId,
      toolName: dynamic ? (part.toolName as string) : staticToolName(part),
      state: chunk.type === 'tool-output-available' ? 'output-available' : 'output-error',
      input: part.input,
      ...(chunk.type === 'tool-output-available'
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
}

export function applyToolOutputChunk(draft: ChunkDraft, chunk: ToolOutputChunk): void {
  switch (chunk.type) {
    case 'tool-approval-request':
      requestApproval(draft, chunk)
      break
    case 'tool-approval-response':
      respondToApproval(draft, chunk)
      break
    case 'tool-output-denied': {
      const index = draft.findToolInvocation(chunk.toolCallId)
      if (index >= 0) draft.own(index).state = 'output-denied'
      break
    }
    case 'tool-output-available':
    case 'tool-output-error':
      settleToolOutput(draft, chunk)
      break
  }
}
