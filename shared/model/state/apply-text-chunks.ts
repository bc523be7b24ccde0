import type { ChunkDraft, ChunkOf } from './chunk-draft.ts'
import { deleteId, getId, setId } from './id-map.ts'

// Text and reasoning chunks: a start opens a streaming part, deltas append to
// it, an end marks it done. A delta or end for an ID that never started is
// skipped (the SDK would error the stream; a durable log must keep folding).

type TextChunk = ChunkOf<'text-start' | 'text-delta' | 'text-end'>
type ReasoningChunk = ChunkOf<'reasoning-start' | 'reasoning-delta' | 'reasoning-end'>

export function applyTextChunk(draft: ChunkDraft, chunk: TextChunk): void {
  if (chunk.type === 'text-start') {
    const index = draft.push({
      type: 'text',
      text: '',
      providerMetadata: chunk.providerMetadata,
      state: 'streaming',
    })
    setId(draft.activeText, chunk.id, index)
    return
  }
  const index = getId(draft.activeText, chunk.id)
  if (index === undefined) return
  const part = draft.own(index)
  if (chunk.type === 'text-delta') {
    part.text = `${part.text as string}${chunk.delta}`
    part.providerMetadata = chunk.providerMetadata ?? part.providerMetadata
    return
  }
  part.state = 'done'
  if (chunk.citations != null) part.citations = chunk.citations
  part.providerMetadata = chunk.providerMetadata ?? part.providerMetadata
  deleteId(draft.activeText, chunk.id)
}

export function applyReasoningChunk(draft: ChunkDraft, chunk: ReasoningChunk): void {
  if (chunk.type === 'reasoning-start') {
    const index = draft.push({
      type: 'reasoning',
      id: chunk.id,
      text: '',
      providerMetadata: chunk.providerMetadata,
      state: 'streaming',
    })
    setId(draft.activeReasoning, chunk.id, index)
    return
  }
  const index = getId(draft.activeReasoning, chunk.id)
  if (index === undefined) return
  const part = draft.own(index)
  if (chunk.type === 'reasoning-delta') {
    part.text = `${part.text as string}${chunk.delta}`
    part.providerMetadata = chunk.providerMetadata ?? part.providerMetadata
    return
  }
  part.providerMetadata = chunk.providerMetadata ?? part.providerMetadata
  part.state = 'done'
  deleteId(draft.activeReasoning, chunk.id)
}
