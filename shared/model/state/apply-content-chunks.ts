import type { ChunkDraft, ChunkOf } from './chunk-draft.ts'

// Chunks that each append one whole part: files, sources, custom content and
// steering messages; and data parts, which replace an earlier one of the same
// type and ID.

type ContentChunk = ChunkOf<
  'file' | 'reasoning-file' | 'source-url' | 'source-document' | 'custom' | 'steering-message'
>

export function applyContentChunk(draft: ChunkDraft, chunk: ContentChunk): void {
  switch (chunk.type) {
    case 'custom':
      draft.push({ type: 'custom', kind: chunk.kind, providerMetadata: chunk.providerMetadata })
      break
    case 'file':
    case 'reasoning-file':
      draft.push({
        type: chunk.type,
        mediaType: chunk.mediaType,
        url: chunk.url,
        ...(chunk.providerMetadata != null ? { providerMetadata: chunk.providerMetadata } : {}),
      })
      break
    case 'source-url':
      draft.push({
        type: 'source-url',
        sourceId: chunk.sourceId,
        url: chunk.url,
        title: chunk.title,
        providerMetadata: chunk.providerMetadata,
      })
      break
    case 'source-document':
      draft.push({
        type: 'source-document',
        sourceId: chunk.sourceId,
        mediaType: chunk.mediaType,
        title: chunk.title,
        filename: chunk.filename,
        providerMetadata: chunk.providerMetadata,
      })
      break
    case 'steering-message':
      draft.push({ type: 'steering-message', id: chunk.id, parts: chunk.parts })
      break
  }
}

/** A `data-*` chunk: transient ones are skipped, others upsert by type and ID. */
export function applyDataChunk(draft: ChunkDraft, chunk: { type: string }): void {
  const data = chunk as { type: string; id?: string; data: unknown; transient?: boolean }
  if (!data.type.startsWith('data-') || data.transient) return
  const existing =
    data.id != null
      ? draft.parts.findIndex((part) => part.type === data.type && part.id === data.id)
      : -1
  if (existing >= 0) draft.own(existing).data = data.data
  else draft.push({ ...data })
}
