import { createGateway, type GatewayProvider } from '@ai-sdk/gateway'
import type { LanguageModelV4Prompt } from '@ai-sdk/provider'
import { type LocalServer, serveFetch } from '../node/serve.ts'
import { installDefaultProvider } from './default-provider.ts'
import { type ModelCall, type Script, stepOf, stepStream, withInputTokens } from './model-script.ts'
import { callOfPrompt } from './prompt-call.ts'

/** The path of the Gateway's model API below its origin (`createGateway`'s default base URL). */
const GATEWAY_API_PATH = '/v4/ai'
/** The path of the public model catalog below its origin (`DEFAULT_MODEL_CATALOG_URL`). */
const CATALOG_PATH = '/v1/models'

/** A model the double's catalog lists, with the limits compaction reads. */
export interface CatalogModel {
  contextWindow?: number
  maxOutputTokens?: number
}

export interface GatewayDoubleOptions {
  /** What each model call answers. */
  script: Script
  /**
   * The catalog (`GET /v1/models`): each model ID with its limits, or a
   * status the catalog answers with instead (`503`: down). Default: the
   * model IDs the script is asked for are not listed (`unavailable`).
   */
  catalog?: Record<string, CatalogModel> | { status: number }
  /** The API key calls must carry (`Authorization: Bearer`); default `'test-gateway-key'`. */
  apiKey?: string
  /**
   * How long each streamed part waits after the one before, in ms (default
   * 0): a text in many deltas then arrives over time, as a model's does, so
   * a test can see it part-way, stop it or reload during it.
   */
  chunkDelayMs?: number
}

export interface GatewayDouble extends LocalServer {
  /** The origin to point A2 at (`A2_GATEWAY_URL`): the model API and the catalog live below it. */
  url: string
  /** The model API's base URL, for `createGateway({ baseURL })`. */
  baseURL: string
  /** The catalog's URL, for `agent({ modelCatalog: { url } })`. */
  catalogUrl: string
  /** The real `@ai-sdk/gateway` provider, pointed here with the double's key. */
  provider: GatewayProvider
  /**
   * Makes model ID strings (`model: 'openai/gpt-5.6-terra'`) resolve to this
   * double, as they resolve to AI Gateway in production: sets the AI SDK's
   * `globalThis.AI_SDK_DEFAULT_PROVIDER`. Returns the function that undoes it.
   */
  install(): () => void
  /** Every model call served, in order. */
  calls: ModelCall[]
  /** How many times the catalog was read. */
  catalogReads(): number
  /** Lets the hanging steps finish. */
  release(): void
}

/**
 * A local stand-in for Vercel AI Gateway that speaks its wire protocol, so
 * an agent runs through the real `@ai-sdk/gateway` provider (and A2 through
 * its real catalog client) with no network: `POST /v4/ai/language-model`
 * answers a streamed call as the Gateway does (server-sent events, one
 * `LanguageModelV4StreamPart` each: text, reasoning, tool calls, usage,
 * errors mid-stream), a failed call with the Gateway's error body, a call
 * without the API key with 401; `GET /v1/models` is the model catalog.
 *
 * @example
 * const gateway = await gatewayDouble({ script: [text('Hello!')] })
 * const undo = gateway.install()
 * const assistant = agent({
 *   name: 'support',
 *   model: 'openai/gpt-5.6-terra',
 *   modelCatalog: { url: gateway.catalogUrl },
 * })
 */
export async function gatewayDouble(options: GatewayDoubleOptions): Promise<GatewayDouble> {
  const apiKey = options.apiKey ?? 'test-gateway-key'
  const calls: ModelCall[] = []
  const hanging = new Set<() => void>()
  let catalogReads = 0

  const server = await serveFetch(async (request) => {
    const { pathname } = new URL(request.url)
    if (request.method === 'GET' && pathname === CATALOG_PATH) {
      catalogReads++
      return catalogResponse(options.catalog ?? {})
    }
    if (request.method !== 'POST' || pathname !== `${GATEWAY_API_PATH}/language-model`) {
      return gatewayError(404, 'not_found_error', `No route ${request.method} ${pathname}`)
    }
    if (request.headers.get('authorization') !== `Bearer ${apiKey}`) {
      return gatewayError(401, 'authentication_error', 'Invalid API key')
    }
    const modelId = request.headers.get('ai-language-model-id')
    if (!modelId) return gatewayError(400, 'invalid_request_error', 'No ai-language-model-id')
    const raw = await request.text()
    const body = JSON.parse(raw) as GatewayCallBody
    const call = callOfPrompt(modelId, body.prompt, body.tools, body)
    const step = stepOf(options.script, call, calls.length)
    calls.push(call)
    if ('error' in step) {
      return gatewayError(step.status ?? 500, step.type ?? 'internal_server_error', step.error)
    }
    const parts = Array.isArray(step) ? withInputTokens(step, raw.length) : step
    const stream = stepStream(
      parts,
      request.signal,
      (release) => {
        hanging.add(release)
      },
      { chunkDelayMs: options.chunkDelayMs ?? 0 },
    )
    return new Response(sseOf(stream), {
      headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
    })
  })

  const baseURL = `${server.url}${GATEWAY_API_PATH}`
  const provider = createGateway({ baseURL, apiKey })
  return {
    ...server,
    baseURL,
    catalogUrl: `${server.url}${CATALOG_PATH}`,
    provider,
    calls,
    catalogReads: () => catalogReads,
    install: () => installDefaultProvider(provider),
    release() {
      for (const release of hanging) release()
      hanging.clear()
    },
  }
}

/** What `@ai-sdk/gateway` posts: the call options, without the abort signal. */
interface GatewayCallBody {
  prompt: LanguageModelV4Prompt
  tools?: { name: string }[]
}

/** The Gateway's error body: the provider turns `type` into its typed error. */
function gatewayError(status: number, type: string, message: string): Response {
  return Response.json({ error: { message, type } }, { status })
}

function catalogResponse(catalog: NonNullable<GatewayDoubleOptions['catalog']>): Response {
  if ('status' in catalog && typeof catalog.status === 'number') {
    return Response.json({ error: 'unavailable' }, { status: catalog.status })
  }
  const models = catalog as Record<string, CatalogModel>
  return Response.json({
    object: 'list',
    data: Object.entries(models).map(([id, limits]) => ({
      id,
      object: 'model',
      type: 'language',
      ...(limits.contextWindow === undefined ? {} : { context_window: limits.contextWindow }),
      ...(limits.maxOutputTokens === undefined ? {} : { max_tokens: limits.maxOutputTokens }),
    })),
  })
}

/** Each part as one server-sent event, as the Gateway streams them. */
function sseOf(parts: ReadableStream<unknown>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  return parts.pipeThrough(
    new TransformStream<unknown, Uint8Array>({
      transform(part, controller) {
        // An error part's `error` is whatever the provider put there; JSON
        // keeps an Error's message only if it is copied out.
        const wire =
          (part as { type?: string }).type === 'error'
            ? { type: 'error', error: errorValue((part as { error: unknown }).error) }
            : part
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(wire)}\n\n`))
      },
    }),
  )
}

function errorValue(error: unknown): unknown {
  return error instanceof Error ? { message: error.message, name: error.name } : error
}
