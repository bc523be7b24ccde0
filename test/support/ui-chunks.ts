import type { UIMessageChunk } from 'ai'

/** Every chunk of a UI message stream, in order: what a chat client (and A2's runtime) receives. */
export async function uiChunks(stream: AsyncIterable<UIMessageChunk>): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = []
  for await (const chunk of stream) chunks.push(chunk)
  return chunks
}

/** The chunks' types, in order, without the deltas' content. */
export function chunkTypes(chunks: readonly UIMessageChunk[]): string[] {
  return chunks.map((chunk) => chunk.type)
}

/** The text the chunks stream: their text deltas joined. */
export function streamedText(chunks: readonly UIMessageChunk[]): string {
  return chunks.map((chunk) => (chunk.type === 'text-delta' ? chunk.delta : '')).join('')
}
