import type {
  LanguageModelV4FinishReason,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
  SharedV4ProviderMetadata,
} from '@ai-sdk/provider'
import { EventStreamCodec } from '@smithy/eventstream-codec'

const encoder = new TextEncoder()
const decoder = new TextDecoder()
const codec = new EventStreamCodec(
  (bytes) => decoder.decode(bytes),
  (text) => encoder.encode(text),
)

/**
 * What Claude on Bedrock closes each reasoning block with when the script
 * gives no signature: the provider sends reasoning back only with one.
 */
const DEFAULT_SIGNATURE = 'bedrock-double-signature'

/** Bedrock's stop reason for each finish reason, as the provider maps it back. */
const STOP_REASONS: Record<LanguageModelV4FinishReason['unified'], string> = {
  stop: 'end_turn',
  'tool-calls': 'tool_use',
  length: 'max_tokens',
  'content-filter': 'content_filtered',
  // No Bedrock stop reason means these; the provider reads this real one as other.
  other: 'malformed_model_output',
  error: 'malformed_model_output',
  interrupted: 'malformed_model_output',
}

/**
 * A step's stream parts as the ConverseStream event stream, framed as AWS
 * frames it (`application/vnd.amazon.eventstream`): `messageStart`, each
 * text, reasoning and tool-use block as `contentBlockStart` (tool use only),
 * `contentBlockDelta`s and `contentBlockStop`, then `messageStop` with the
 * stop reason and `metadata` with the usage. An `error` part becomes an
 * exception frame, which ends the stream as Bedrock ends it: its
 * `error.type` names the exception (default `modelStreamErrorException`;
 * `@ai-sdk/amazon-bedrock` surfaces `internalServerException`,
 * `modelStreamErrorException`, `serviceUnavailableException`,
 * `throttlingException` and `validationException` as an error part, and
 * ignores others). Parts with no Converse event (sources,
 * files, raw chunks, response metadata) are left out.
 */
export function converseEventStream(
  parts: ReadableStream<LanguageModelV4StreamPart>,
): ReadableStream<Uint8Array> {
  const blocks = new ContentBlocks()
  return parts.pipeThrough(
    new TransformStream<LanguageModelV4StreamPart, Uint8Array>({
      start(controller) {
        controller.enqueue(event('messageStart', { role: 'assistant' }))
      },
      transform(part, controller) {
        if (part.type === 'error') {
          controller.enqueue(exception(part.error))
          controller.terminate()
          return
        }
        for (const frame of blocks.framesOf(part)) controller.enqueue(frame)
      },
    }),
  )
}

/** The content blocks of one message: Converse numbers them, the parts name them. */
class ContentBlocks {
  private readonly indexes = new Map<string, number>()
  private readonly open = new Set<string>()
  private readonly signatures = new Map<string, string>()

  framesOf(part: LanguageModelV4StreamPart): Uint8Array[] {
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start':
        this.start(`${part.type.slice(0, -'-start'.length)}:${part.id}`)
        return []
      case 'text-delta':
        return part.delta === '' ? [] : [this.delta(`text:${part.id}`, { text: part.delta })]
      case 'text-end':
        return this.stop(`text:${part.id}`)
      case 'reasoning-delta':
        this.remember(`reasoning:${part.id}`, part.providerMetadata)
        return part.delta === ''
          ? []
          : [this.delta(`reasoning:${part.id}`, { reasoningContent: { text: part.delta } })]
      case 'reasoning-end':
        return this.endReasoning(`reasoning:${part.id}`, part.providerMetadata)
      case 'tool-input-start':
        return [this.startToolUse(part.id, part.toolName)]
      case 'tool-input-delta':
        return [this.delta(`tool:${part.id}`, { toolUse: { input: part.delta } })]
      case 'tool-input-end':
        return this.stop(`tool:${part.id}`)
      case 'tool-call':
        return this.toolCall(part.toolCallId, part.toolName, part.input)
      case 'finish':
        return [
          ...this.stopAll(),
          event('messageStop', { stopReason: STOP_REASONS[part.finishReason.unified] }),
          event('metadata', { usage: converseUsage(part.usage), metrics: { latencyMs: 1 } }),
        ]
      default:
        return []
    }
  }

  private start(key: string): number {
    let index = this.indexes.get(key)
    if (index === undefined) {
      index = this.indexes.size
      this.indexes.set(key, index)
      this.open.add(key)
    }
    return index
  }

  private delta(key: string, delta: Record<string, unknown>): Uint8Array {
    return event('contentBlockDelta', { contentBlockIndex: this.start(key), delta })
  }

  private stop(key: string): Uint8Array[] {
    const index = this.indexes.get(key)
    if (index === undefined || !this.open.delete(key)) return []
    return [event('contentBlockStop', { contentBlockIndex: index })]
  }

  /** Ends the blocks a step left open, as Bedrock ends every block before `messageStop`. */
  private stopAll(): Uint8Array[] {
    return [...this.open].flatMap((key) =>
      key.startsWith('reasoning:') ? this.endReasoning(key, undefined) : this.stop(key),
    )
  }

  private startToolUse(toolUseId: string, name: string): Uint8Array {
    const contentBlockIndex = this.start(`tool:${toolUseId}`)
    return event('contentBlockStart', {
      contentBlockIndex,
      start: { toolUse: { toolUseId, name } },
    })
  }

  /** A whole tool call; one whose input was streamed already has its block. */
  private toolCall(toolUseId: string, name: string, input: string): Uint8Array[] {
    const key = `tool:${toolUseId}`
    if (this.indexes.has(key)) return this.stop(key)
    return [
      this.startToolUse(toolUseId, name),
      this.delta(key, { toolUse: { input } }),
      ...this.stop(key),
    ]
  }

  private remember(key: string, metadata: SharedV4ProviderMetadata | undefined): void {
    const signature = signatureOf(metadata)
    if (signature !== undefined) this.signatures.set(key, signature)
  }

  private endReasoning(key: string, metadata: SharedV4ProviderMetadata | undefined): Uint8Array[] {
    if (!this.open.has(key)) return []
    this.remember(key, metadata)
    const signature = this.signatures.get(key) ?? DEFAULT_SIGNATURE
    return [this.delta(key, { reasoningContent: { signature } }), ...this.stop(key)]
  }
}

/** A reasoning part's signature, under the provider's names for itself (or Anthropic's). */
function signatureOf(metadata: SharedV4ProviderMetadata | undefined): string | undefined {
  for (const provider of ['amazonBedrock', 'bedrock', 'anthropic']) {
    const signature = metadata?.[provider]?.signature
    if (typeof signature === 'string') return signature
  }
  return undefined
}

/** The usage as Bedrock counts it: its input tokens leave out cache reads and writes. */
function converseUsage(usage: LanguageModelV4Usage): Record<string, number> {
  const cacheRead = usage.inputTokens.cacheRead ?? 0
  const cacheWrite = usage.inputTokens.cacheWrite ?? 0
  const input =
    usage.inputTokens.noCache ??
    Math.max(0, (usage.inputTokens.total ?? 0) - cacheRead - cacheWrite)
  const output = usage.outputTokens.total ?? 0
  return {
    inputTokens: input,
    outputTokens: output,
    totalTokens: input + cacheRead + cacheWrite + output,
    ...(cacheRead > 0 ? { cacheReadInputTokens: cacheRead } : {}),
    ...(cacheWrite > 0 ? { cacheWriteInputTokens: cacheWrite } : {}),
  }
}

function event(eventType: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: {
      ':event-type': { type: 'string', value: eventType },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: encoder.encode(JSON.stringify(payload)),
  })
}

/** An exception frame: its type from the error's `type` (either case), its body Bedrock's `{ message }`. */
function exception(error: unknown): Uint8Array {
  const { type, message } = describe(error)
  const name = type === undefined ? 'modelStreamErrorException' : lowerFirst(type)
  return codec.encode({
    headers: {
      ':exception-type': { type: 'string', value: name },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'exception' },
    },
    body: encoder.encode(JSON.stringify({ message })),
  })
}

function describe(error: unknown): { type?: string; message: string } {
  if (error instanceof Error) return { message: error.message }
  if (typeof error === 'object' && error !== null) {
    const { type, message } = error as { type?: unknown; message?: unknown }
    return {
      ...(typeof type === 'string' ? { type } : {}),
      message: typeof message === 'string' ? message : JSON.stringify(error),
    }
  }
  return { message: String(error) }
}

function lowerFirst(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1)
}
