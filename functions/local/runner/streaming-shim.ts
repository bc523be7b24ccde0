import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { APIGatewayProxyEvent, Context } from 'aws-lambda'
import type {
  AwsLambdaGlobal,
  HttpResponseMetadata,
  ResponseStream,
  StreamingHandler,
} from '../../../shared/aws/lambda/awslambda.ts'
import { listenError } from '../../../shared/node/serve-error.ts'
import { serverUrl } from '../../../shared/node/server-url.ts'

/**
 * Lambda's `awslambda` global for local runs: `streamifyResponse` returns the
 * handler as is, and `HttpResponseStream.from` writes the status and headers
 * to the Node response the runner passes as the stream (Lambda writes them
 * as a JSON prelude that API Gateway turns into the same thing).
 */
export const streamingShim: AwsLambdaGlobal = {
  streamifyResponse: (handler) => handler,
  HttpResponseStream: {
    from(stream: ResponseStream, metadata: HttpResponseMetadata): ResponseStream {
      const response = stream as Partial<ServerResponse>
      if (typeof response.writeHead === 'function') {
        response.writeHead(metadata.statusCode, {
          ...metadata.headers,
          ...(metadata.cookies?.length ? { 'set-cookie': metadata.cookies } : {}),
        })
        response.flushHeaders?.()
      }
      return stream
    },
  },
}

/** 15 minutes: what API Gateway and Lambda allow a streamed response. */
const STREAM_LIMIT_MS = 15 * 60_000

/**
 * What the local server answers itself, before the Lambda handler: a GET or
 * HEAD as a fetch `Request`, and `undefined` to pass it on (bodies are not
 * read: these routes only read).
 */
export type LocalRoutes = (request: Request) => Promise<Response> | undefined

/**
 * Serves a response-streaming Lambda handler on Node's HTTP server, with
 * each request turned into an API Gateway REST proxy event. `routes` may
 * answer reads first (the chat page, `/api/state`), as `npm start` does.
 * A busy port rejects with `PortInUseError`, a bad one with `InvalidPortError`,
 * a host it cannot listen on with `HostUnavailableError`.
 */
export async function serveStreamingHandler(
  handler: StreamingHandler<APIGatewayProxyEvent>,
  {
    port = 0,
    hostname = '127.0.0.1',
    routes,
  }: { port?: number; hostname?: string; routes?: LocalRoutes } = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const local = routes && localRequest(request)
    const answer = local && routes(local)
    if (answer) {
      void answer
        .then((reply) => writeFetchResponse(reply, response))
        .catch((error: unknown) => {
          if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' })
          response.end(JSON.stringify({ error: { code: 'INTERNAL', message: String(error) } }))
        })
      return
    }
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ error: { code: 'INTERNAL', message: String(error) } }))
    })
  })
  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const started = Date.now()
    const context = {
      getRemainingTimeInMillis: () => STREAM_LIMIT_MS - (Date.now() - started),
    } as Context
    await handler(proxyEvent(request, Buffer.concat(chunks)), response, context)
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(listenError(error, port, hostname)))
    // A bad port throws here, before any 'error' event.
    try {
      server.listen(port, hostname, () => resolve())
    } catch (error) {
      reject(listenError(error, port, hostname))
    }
  })
  const address = server.address() as { port: number }
  return {
    url: serverUrl(hostname, address.port),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

function localRequest(request: IncomingMessage): Request | undefined {
  if (request.method !== 'GET' && request.method !== 'HEAD') return undefined
  const headers = new Headers()
  for (let at = 0; at < request.rawHeaders.length; at += 2) {
    headers.append(request.rawHeaders[at] as string, request.rawHeaders[at + 1] as string)
  }
  return new Request(new URL(request.url ?? '/', 'http://local'), {
    method: request.method,
    headers,
  })
}

async function writeFetchResponse(reply: Response, response: ServerResponse): Promise<void> {
  response.writeHead(reply.status, Object.fromEntries(reply.headers))
  response.end(Buffer.from(await reply.arrayBuffer()))
}

function proxyEvent(request: IncomingMessage, body: Buffer): APIGatewayProxyEvent {
  const url = new URL(request.url ?? '/', 'http://local')
  const headers: Record<string, string> = {}
  const multiValueHeaders: Record<string, string[]> = {}
  for (let at = 0; at < request.rawHeaders.length; at += 2) {
    const name = request.rawHeaders[at] as string
    const value = request.rawHeaders[at + 1] as string
    headers[name] = value
    multiValueHeaders[name] = [...(multiValueHeaders[name] ?? []), value]
  }
  const query: Record<string, string> = {}
  const multiQuery: Record<string, string[]> = {}
  for (const [name, value] of url.searchParams) {
    query[name] = value
    multiQuery[name] = [...(multiQuery[name] ?? []), value]
  }
  const hasQuery = Object.keys(query).length > 0
  return {
    httpMethod: request.method ?? 'GET',
    path: url.pathname,
    resource: url.pathname,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters: null,
    stageVariables: null,
    body: body.length > 0 ? body.toString('base64') : null,
    isBase64Encoded: body.length > 0,
    requestContext: {} as APIGatewayProxyEvent['requestContext'],
  }
}
