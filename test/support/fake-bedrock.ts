import { EventStreamCodec } from '@smithy/eventstream-codec'
import { type LocalServer, serveFetch } from '../../shared/node/serve.ts'

/** A ConverseStream request as the fake received it. */
export interface BedrockRequest {
  /** The model or inference profile ID from the path. */
  modelId: string
  /** The SigV4 `Authorization` header the provider signed the request with. */
  authorization: string
  body: {
    messages: { role: string; content: { text?: string }[] }[]
    system?: { text?: string }[]
    toolConfig?: { toolChoice?: unknown }
  }
}

export interface FakeBedrock extends LocalServer {
  requests: BedrockRequest[]
}

const codec = new EventStreamCodec(
  (bytes) => new TextDecoder().decode(bytes),
  (text) => new TextEncoder().encode(text),
)

/** One event of the ConverseStream event stream, framed as Bedrock frames it. */
function frame(eventType: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: {
      ':event-type': { type: 'string', value: eventType },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: new TextEncoder().encode(JSON.stringify(payload)),
  })
}

/**
 * A local stand-in for the Bedrock Runtime `ConverseStream` API
 * (`POST /model/{modelId}/converse-stream`, answered in the AWS event
 * stream encoding): each request gets the text `answer` returns for it,
 * streamed in two deltas, and a usage of a token per four request bytes. Requests without a SigV4 signature are refused
 * as Bedrock refuses them.
 */
export async function fakeBedrock(
  answer: (request: BedrockRequest) => string,
): Promise<FakeBedrock> {
  const requests: BedrockRequest[] = []
  const server = await serveFetch(async (request) => {
    const match = /^\/model\/([^/]+)\/converse-stream$/.exec(new URL(request.url).pathname)
    const authorization = request.headers.get('authorization') ?? ''
    if (request.method !== 'POST' || !match?.[1]) return new Response('not found', { status: 404 })
    if (!authorization.startsWith('AWS4-HMAC-SHA256 Credential=')) {
      return Response.json({ message: 'Missing Authentication Token' }, { status: 403 })
    }
    const raw = await request.text()
    const received: BedrockRequest = {
      modelId: decodeURIComponent(match[1]),
      authorization,
      body: JSON.parse(raw) as BedrockRequest['body'],
    }
    // About what a tokenizer would count, so A2's calibration stays near 1.
    const inputTokens = Math.ceil(raw.length / 4)
    requests.push(received)
    const text = answer(received)
    const half = Math.ceil(text.length / 2)
    const frames = [
      frame('messageStart', { role: 'assistant' }),
      frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: text.slice(0, half) } }),
      frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: text.slice(half) } }),
      frame('contentBlockStop', { contentBlockIndex: 0 }),
      frame('messageStop', { stopReason: 'end_turn' }),
      frame('metadata', {
        usage: { inputTokens, outputTokens: 5, totalTokens: inputTokens + 5 },
        metrics: { latencyMs: 1 },
      }),
    ]
    return new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const bytes of frames) controller.enqueue(bytes)
          controller.close()
        },
      }),
      { headers: { 'content-type': 'application/vnd.amazon.eventstream' } },
    )
  })
  return { ...server, requests }
}
