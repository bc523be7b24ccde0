import type { UIMessage, UIMessageChunk } from 'ai'

type Part = UIMessage['parts'][number]
type Loose = Record<string, unknown> & { type: string }

/**
 * The UI message chunks that turn `previous` (what a stream reader has
 * built so far) into `next`, as the AI SDK's `processUIMessageStream`
 * builds messages: text grows by deltas, tool parts move through their
 * states, new parts open. A change chunks cannot express, such as a
 * superseded attempt's text being replaced, rewinds the current step with
 * `reset-step` and writes it again; a change before the current step is
 * left for a reconnect (which replays the whole message) to correct.
 *
 * @example
 * for (const chunk of messageChunks(shown, state.messages.at(-1))) controller.enqueue(chunk)
 */
export function messageChunks(previous: UIMessage | undefined, next: UIMessage): UIMessageChunk[] {
  const before = previous?.parts ?? []
  const chunks: UIMessageChunk[] = []
  let at = 0
  for (; at < before.length && at < next.parts.length; at++) {
    const update = partUpdate(before[at] as Part, next.parts[at] as Part, at)
    if (update === null) break
    chunks.push(...update)
  }
  if (at < before.length) {
    const stepStart = before.findLastIndex((part) => part.type === 'step-start')
    if (at > stepStart && stepStart !== -1) {
      chunks.push({ type: 'reset-step' } as UIMessageChunk)
      at = stepStart + 1
    } else {
      at = before.length
    }
  }
  for (; at < next.parts.length; at++) chunks.push(...partOpen(next.parts[at] as Part, at))
  if (JSON.stringify(previous?.metadata) !== JSON.stringify(next.metadata)) {
    chunks.push({ type: 'message-metadata', messageMetadata: next.metadata })
  }
  return chunks
}

/** A part read field by field: spreading a typed part gives an indexable copy. */
const loose = (part: Part): Loose => ({ ...part })

const isTool = (part: Loose): boolean =>
  part.type.startsWith('tool-') || part.type === 'dynamic-tool'
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/** Chunks that update part `from` into `to` in place, or `null` when chunks cannot. */
function partUpdate(fromPart: Part, toPart: Part, at: number): UIMessageChunk[] | null {
  const from = loose(fromPart)
  const to = loose(toPart)
  if (from.type !== to.type) return null
  if (to.type === 'text' || to.type === 'reasoning') return textUpdate(from, to, at)
  if (isTool(to)) return from.toolCallId === to.toolCallId ? toolChunks(from, to) : null
  if (to.type.startsWith('data-')) {
    if (same(from.data, to.data)) return []
    return to.id === undefined || to.id !== from.id ? null : [dataChunk(to)]
  }
  return same(from, to) ? [] : null
}

function textUpdate(from: Loose, to: Loose, at: number): UIMessageChunk[] | null {
  const kind = to.type as 'text' | 'reasoning'
  const [before, after] = [String(from.text ?? ''), String(to.text ?? '')]
  const toDone = to.state !== 'streaming'
  if (!after.startsWith(before)) return null
  // A closed part cannot grow again.
  if (from.state !== 'streaming') return after === before && toDone ? [] : null
  const id = `${kind}-${at}`
  const chunks: UIMessageChunk[] = []
  if (after.length > before.length) {
    chunks.push({ type: `${kind}-delta`, id, delta: after.slice(before.length) } as UIMessageChunk)
  }
  if (toDone) chunks.push({ type: `${kind}-end`, id } as UIMessageChunk)
  return chunks
}

function partOpen(partValue: Part, at: number): UIMessageChunk[] {
  const part = loose(partValue)
  if (part.type === 'step-start') return [{ type: 'start-step' }]
  if (part.type === 'text' || part.type === 'reasoning') {
    const id = `${part.type}-${at}`
    return [
      { type: `${part.type}-start`, id } as UIMessageChunk,
      ...(textUpdate({ type: part.type, text: '', state: 'streaming' }, part, at) ?? []),
    ]
  }
  if (isTool(part)) {
    const dynamic = part.type === 'dynamic-tool'
    const toolName = dynamic ? String(part.toolName) : part.type.slice('tool-'.length)
    const start = {
      type: 'tool-input-start',
      toolCallId: part.toolCallId,
      toolName,
      ...(dynamic ? { dynamic: true } : {}),
      ...(part.providerExecuted === undefined ? {} : { providerExecuted: part.providerExecuted }),
      ...(part.title === undefined ? {} : { title: part.title }),
    } as UIMessageChunk
    const opened = { type: part.type, toolCallId: part.toolCallId, state: 'input-streaming' }
    return [start, ...toolChunks(opened, part)]
  }
  if (part.type.startsWith('data-')) return [dataChunk(part)]
  // These parts are their own chunks, field for field.
  if (
    partValue.type === 'file' ||
    partValue.type === 'source-url' ||
    partValue.type === 'source-document'
  ) {
    return [partValue]
  }
  return []
}

const INPUT_DONE = new Set([
  'input-available',
  'approval-requested',
  'approval-responded',
  'output-available',
  'output-error',
  'output-denied',
])

/** A tool part's moves from one state to the next, each as the chunk the SDK expects. */
function toolChunks(from: Loose, to: Loose): UIMessageChunk[] {
  if (same(from, to)) return []
  const dynamic = to.type === 'dynamic-tool'
  const toolName = dynamic ? String(to.toolName) : to.type.slice('tool-'.length)
  const base = { toolCallId: String(to.toolCallId), ...(dynamic ? { dynamic: true } : {}) }
  const executed =
    to.providerExecuted === undefined ? {} : { providerExecuted: Boolean(to.providerExecuted) }
  const chunks: UIMessageChunk[] = []
  const state = String(to.state)
  if (INPUT_DONE.has(state) && !INPUT_DONE.has(String(from.state)) && state !== 'output-error') {
    chunks.push({ type: 'tool-input-available', ...base, toolName, input: to.input, ...executed })
  }
  const approval = to.approval as { id: string; approved?: boolean; reason?: string } | undefined
  const before = from.approval as { id: string; approved?: boolean } | undefined
  if (approval && before?.id !== approval.id) {
    chunks.push({
      type: 'tool-approval-request',
      approvalId: approval.id,
      toolCallId: base.toolCallId,
    })
  }
  if (approval?.approved !== undefined && before?.approved === undefined) {
    chunks.push({
      type: 'tool-approval-response',
      approvalId: approval.id,
      approved: approval.approved,
      ...(approval.reason === undefined ? {} : { reason: approval.reason }),
    })
  }
  const changed = from.state !== state || !same(from.output, to.output)
  if (state === 'output-available' && changed) {
    chunks.push({
      type: 'tool-output-available',
      ...base,
      output: to.output,
      ...executed,
      ...(to.preliminary ? { preliminary: true } : {}),
    })
  } else if (state === 'output-error' && from.state !== state) {
    if (!INPUT_DONE.has(String(from.state))) {
      chunks.push({
        type: 'tool-input-error',
        ...base,
        toolName,
        input: to.input,
        errorText: String(to.errorText ?? ''),
      })
    } else {
      chunks.push({ type: 'tool-output-error', ...base, errorText: String(to.errorText ?? '') })
    }
  } else if (state === 'output-denied' && from.state !== state) {
    chunks.push({ type: 'tool-output-denied', toolCallId: base.toolCallId })
  }
  return chunks
}

function dataChunk(part: Loose): UIMessageChunk {
  return {
    type: part.type,
    ...(part.id === undefined ? {} : { id: part.id }),
    data: part.data,
  } as UIMessageChunk
}
