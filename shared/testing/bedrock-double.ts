import { type AmazonBedrockProvider, createAmazonBedrock } from '@ai-sdk/amazon-bedrock'
import { type LocalServer, serveFetch } from '../node/serve.ts'
import { type ConverseRequest, callOfConverse } from './converse-call.ts'
import { converseEventStream } from './converse-stream.ts'
import { type ModelCall, type Script, stepOf, stepStream, withInputTokens } from './model-script.ts'

/** A ConverseStream call as the double received it: the `ModelCall`, Bedrock's body, the signature. */
export interface BedrockCall extends ModelCall {
  /** The request body as `@ai-sdk/amazon-bedrock` posted it. */
  body: ConverseRequest
  /**
   * The `Authorization` header: a SigV4 signature (`AWS4-HMAC-SHA256
   * Credential=<key ID>/<date>/<region>/bedrock/aws4_request, ...`) or an
   * API key (`Bearer ...`). The double checks its form, not the signature.
   */
  authorization: string
}

/** The AWS credentials the double's `env()` and `provider` sign with (any are accepted). */
export interface BedrockDoubleCredentials {
  accessKeyId: string
  secretAccessKey: string
}

export interface BedrockDoubleOptions {
  /** What each model call answers (a function gets the call with its Converse body). */
  script: Script<BedrockCall>
  /** The region `env()` and `provider` sign for; default `us-east-1`. */
  region?: string
  /** The credentials `env()` and `provider` sign with; default a fake key pair. */
  credentials?: BedrockDoubleCredentials
  /**
   * A Bedrock API key the double also accepts (`Authorization: Bearer`, what
   * `AWS_BEARER_TOKEN_BEDROCK` makes the provider send). Default: none, so
   * only signed requests are served.
   */
  apiKey?: string
  /**
   * How long each streamed part waits after the one before, in ms (default
   * 0), as with `gatewayDouble`: an answer then streams over time.
   */
  chunkDelayMs?: number
}

export interface BedrockDouble extends LocalServer {
  /** The Bedrock Runtime endpoint: `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`, or `createAmazonBedrock({ baseURL })`. */
  url: string
  region: string
  credentials: BedrockDoubleCredentials
  /**
   * The environment that points `@ai-sdk/amazon-bedrock` (and so a
   * `bedrock:<model ID>` model) at the double: its endpoint, region and
   * credentials, and `AWS_BEARER_TOKEN_BEDROCK` and `AWS_SESSION_TOKEN`
   * unset (`undefined`), since a key in the environment makes the provider
   * send it instead of signing. Set them with `vi.stubEnv`.
   */
  env(): Record<string, string | undefined>
  /** The real `@ai-sdk/amazon-bedrock` provider, pointed here with the double's region and credentials. */
  provider: AmazonBedrockProvider
  /** Every model call served, in order. */
  calls: BedrockCall[]
  /** Lets the hanging steps finish. */
  release(): void
}

const DEFAULT_CREDENTIALS: BedrockDoubleCredentials = {
  accessKeyId: 'AKIABEDROCKDOUBLE',
  secretAccessKey: 'bedrock-double-secret',
}

const CONVERSE_STREAM = /^\/model\/([^/]+)\/converse-stream$/

/** Bedrock's exception name for a status, when a failing step names none. */
const EXCEPTIONS: Record<number, string> = {
  400: 'ValidationException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  503: 'ServiceUnavailableException',
}

/**
 * A local stand-in for Amazon Bedrock Runtime that speaks its wire protocol,
 * so an agent runs through the real `@ai-sdk/amazon-bedrock` provider (its
 * SigV4 signing, request building and event-stream parsing) with no
 * network: `POST /model/{modelId}/converse-stream` answers each call with
 * the script's step as ConverseStream events in AWS's event-stream framing
 * (text, reasoning with its signature, tool use with streamed input, the
 * stop reason and usage, an exception mid-stream), a failed step with
 * Bedrock's error (the status, `{ message }`, `x-amzn-ErrorType`), and a
 * request without a SigV4 signature with 403, as Bedrock does.
 *
 * @example
 * const bedrock = await bedrockDouble({ script: [text('Hello!')] })
 * for (const [name, value] of Object.entries(bedrock.env())) vi.stubEnv(name, value)
 * const assistant = agent({
 *   name: 'support',
 *   model: 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0',
 * })
 */
export async function bedrockDouble(options: BedrockDoubleOptions): Promise<BedrockDouble> {
  const region = options.region ?? 'us-east-1'
  const credentials = options.credentials ?? DEFAULT_CREDENTIALS
  const calls: BedrockCall[] = []
  const hanging = new Set<() => void>()

  const server = await serveFetch(async (request) => {
    const match = CONVERSE_STREAM.exec(new URL(request.url).pathname)
    if (request.method !== 'POST' || !match?.[1]) {
      return bedrockError(404, 'UnknownOperationException', 'Not Found')
    }
    const authorization = request.headers.get('authorization') ?? ''
    const refused = refusal(authorization, options.apiKey)
    if (refused) return refused
    const raw = await request.text()
    const body = JSON.parse(raw) as ConverseRequest
    const call: BedrockCall = {
      ...callOfConverse(decodeURIComponent(match[1]), body),
      body,
      authorization,
    }
    const step = stepOf(options.script, call, calls.length)
    calls.push(call)
    if ('error' in step) {
      const status = step.status ?? 500
      return bedrockError(
        status,
        step.type ?? EXCEPTIONS[status] ?? 'InternalServerException',
        step.error,
      )
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
    return new Response(converseEventStream(stream), {
      headers: {
        'content-type': 'application/vnd.amazon.eventstream',
        'x-amzn-requestid': crypto.randomUUID(),
      },
    })
  })

  return {
    ...server,
    region,
    credentials,
    env: () => ({
      AWS_ENDPOINT_URL_BEDROCK_RUNTIME: server.url,
      AWS_REGION: region,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_SESSION_TOKEN: undefined,
      AWS_BEARER_TOKEN_BEDROCK: undefined,
    }),
    provider: createAmazonBedrock({ baseURL: server.url, region, ...credentials }),
    calls,
    release() {
      for (const release of hanging) release()
      hanging.clear()
    },
  }
}

/** Bedrock's answer to a request it does not authenticate, or nothing for one it does. */
function refusal(authorization: string, apiKey: string | undefined): Response | undefined {
  if (authorization.startsWith('AWS4-HMAC-SHA256 Credential=')) return undefined
  if (apiKey !== undefined && authorization === `Bearer ${apiKey}`) return undefined
  if (authorization === '') {
    return bedrockError(403, 'MissingAuthenticationTokenException', 'Missing Authentication Token')
  }
  return bedrockError(
    403,
    'UnrecognizedClientException',
    'The security token included in the request is invalid.',
  )
}

/** Bedrock's error: its message in the body, its exception name in a header. */
function bedrockError(status: number, type: string, message: string): Response {
  return Response.json({ message }, { status, headers: { 'x-amzn-ErrorType': type } })
}
