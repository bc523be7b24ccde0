import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { APIGatewayProxyEvent } from 'aws-lambda'
import type { AgentMetrics } from '../../agent/wiring/agent-metrics.ts'
import type { FetchOptions } from '../../http/log-endpoint.ts'
import { hasA2Code } from '../../log/error-brand.ts'
import { messageOf } from '../../log/message-of.ts'
import { PipelineError } from '../errors.ts'
import type { AwsLambdaGlobal, ResponseStream, StreamingHandler } from './awslambda.ts'
import type { PipelineAgent, PipelineLogger } from './pipeline-agent.ts'
import { principalOf } from './request-principal.ts'
import { STREAM_ENDED, STREAM_OPENED, type StreamEndReason } from './stream-log-lines.ts'

/**
 * How long before Lambda's deadline a response is ended, so an SSE client
 * gets a clean end (and reconnects with Last-Event-ID) instead of a cut.
 * @internal Exported for the benchmarks (knip --production).
 */
export const DEADLINE_MARGIN_MS = 10_000

const CLIENT_GONE = 'client gone'
const DEADLINE = 'Lambda deadline'

export interface HttpHandlerOptions {
  /**
   * Who may do what (see `httpAccess`), asked once, on the first request (a
   * misconfiguration fails that invocation, loudly); the caller API Gateway
   * verified is added per request.
   */
  access?: () => Pick<FetchOptions, 'authorize' | 'openSession'>
  logger: PipelineLogger
  /** The Lambda global's `HttpResponseStream` (the real one, or the local shim's). */
  httpResponseStream: AwsLambdaGlobal['HttpResponseStream']
  /** Where GET streams are counted (opened, ended, how long). */
  metrics?: AgentMetrics
}

/**
 * The API Gateway (REST, proxy, response streaming) handler: the event
 * becomes a `Request` for `agent.fetch`, whose `Response` is streamed back,
 * status and headers first. Wrap it in `awslambda.streamifyResponse`.
 */
export function httpHandler(
  agent: PipelineAgent,
  options: HttpHandlerOptions,
): StreamingHandler<APIGatewayProxyEvent> {
  let access: Pick<FetchOptions, 'authorize' | 'openSession'> | undefined
  return async (event, responseStream, context) => {
    access ??= options.access?.() ?? {}
    const started = Date.now()
    const abort = new AbortController()
    const remaining = context?.getRemainingTimeInMillis?.() ?? 15 * 60_000
    const deadline = setTimeout(
      () => abort.abort(new Error(DEADLINE)),
      Math.max(0, remaining - DEADLINE_MARGIN_MS),
    )
    responseStream.once('close', () => abort.abort(new Error(CLIENT_GONE)))
    // A GET stream logs when it opens and ends, so an operator (and `npm run
    // verify`) can tie an SSE connection to its invocation and its REPORT.
    let streamOf: string | undefined
    try {
      let response: Response
      try {
        const request = requestFromApiGatewayEvent(event, abort.signal)
        const principal = principalOf(event)
        response = await agent.fetch(request, {
          ...access,
          ...(principal ? { principal } : {}),
          // A POST's appends (a message decided where it is written: the
          // turn starts here) count into this invocation's figures.
          ...(options.metrics ? { metrics: options.metrics } : {}),
        })
        if (isEventStream(request, response)) {
          streamOf = new URL(request.url).searchParams.get('sessionId') ?? ''
          options.logger.info(STREAM_OPENED, { sessionId: streamOf })
          options.metrics?.record('StreamsOpened', 1)
        }
      } catch (error) {
        options.logger.warn('a2: bad HTTP event', { error: String(error) })
        const malformed = hasA2Code(error, 'MALFORMED_HTTP_EVENT')
        response = Response.json(
          {
            error: {
              code: malformed ? error.code : 'INTERNAL',
              message: messageOf(error),
            },
          },
          { status: malformed ? 400 : 500 },
        )
      }
      await writeResponse(response, responseStream, options.httpResponseStream)
    } finally {
      clearTimeout(deadline)
      if (streamOf !== undefined) {
        const durationMs = Date.now() - started
        options.logger.info(STREAM_ENDED, {
          sessionId: streamOf,
          durationMs,
          reason: endReason(abort.signal),
        })
        options.metrics?.record('StreamsEnded', 1)
        options.metrics?.record('StreamDuration', durationMs)
      }
    }
  }
}

function isEventStream(request: Request, response: Response): boolean {
  return (
    request.method === 'GET' &&
    response.ok &&
    (response.headers.get('content-type') ?? '').startsWith('text/event-stream')
  )
}

function endReason(signal: AbortSignal): StreamEndReason {
  if (!signal.aborted) return 'end'
  return (signal.reason as Error | undefined)?.message === DEADLINE ? 'deadline' : 'client gone'
}

/**
 * An API Gateway REST proxy event as a fetch `Request`.
 * @internal Exported for its test (knip --production).
 */
export function requestFromApiGatewayEvent(
  event: APIGatewayProxyEvent,
  signal?: AbortSignal,
): Request {
  if (typeof event !== 'object' || event === null || typeof event.httpMethod !== 'string') {
    throw new PipelineError('MALFORMED_HTTP_EVENT', 'Not an API Gateway proxy event: no httpMethod')
  }
  const headers = new Headers()
  for (const [name, values] of Object.entries(event.multiValueHeaders ?? {})) {
    for (const value of values ?? []) headers.append(name, value)
  }
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined && !headers.has(name)) headers.set(name, value)
  }
  const query = new URLSearchParams()
  const multi = event.multiValueQueryStringParameters ?? {}
  for (const [name, values] of Object.entries(multi)) {
    for (const value of values ?? []) query.append(name, value)
  }
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) {
    if (value !== undefined && !(name in multi)) query.append(name, value)
  }
  const host = headers.get('host') ?? 'lambda.local'
  const search = query.toString()
  const url = `https://${host}${event.path ?? '/'}${search ? `?${search}` : ''}`
  const hasBody =
    event.body !== null && event.body !== undefined && !['GET', 'HEAD'].includes(event.httpMethod)
  return new Request(url, {
    method: event.httpMethod,
    headers,
    ...(hasBody
      ? {
          body: event.isBase64Encoded
            ? Buffer.from(event.body as string, 'base64')
            : (event.body as string),
        }
      : {}),
    ...(signal ? { signal } : {}),
  })
}

async function writeResponse(
  response: Response,
  responseStream: ResponseStream,
  httpResponseStream: AwsLambdaGlobal['HttpResponseStream'],
): Promise<void> {
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value
  })
  const cookies = response.headers.getSetCookie()
  const stream = httpResponseStream.from(responseStream, {
    statusCode: response.status,
    headers,
    ...(cookies.length > 0 ? { cookies } : {}),
  })
  if (!response.body) {
    stream.end()
    return
  }
  try {
    await pipeline(
      Readable.fromWeb(response.body as import('node:stream/web').ReadableStream),
      stream,
    )
  } catch (error) {
    // The client left or the deadline passed: the stream is already closed.
    if ((error as { code?: string }).code !== 'ERR_STREAM_PREMATURE_CLOSE') throw error
  }
}
