import type { Writable } from 'node:stream'
import type { Context } from 'aws-lambda'

/** The stream a response-streaming handler writes to. */
export type ResponseStream = Writable

export interface HttpResponseMetadata {
  statusCode: number
  headers?: Record<string, string>
  cookies?: string[]
}

export type StreamingHandler<Event> = (
  event: Event,
  responseStream: ResponseStream,
  context: Context,
) => Promise<void>

/**
 * The `awslambda` global of Lambda's Node runtime (response streaming). It
 * exists only inside Lambda; the repo's local runner passes its own shim to
 * `pipelineHandlers` instead.
 */
export interface AwsLambdaGlobal {
  streamifyResponse<Event>(handler: StreamingHandler<Event>): StreamingHandler<Event>
  HttpResponseStream: {
    from(stream: ResponseStream, metadata: HttpResponseMetadata): ResponseStream
  }
}

/** The global, or a clear error when not running in Lambda (or under the shim). */
export function lambdaGlobal(): AwsLambdaGlobal {
  // @types/aws-lambda declares the global with its own handler types; ours
  // are the subset this package uses, so read it as that.
  const value = (globalThis as unknown as { awslambda?: AwsLambdaGlobal }).awslambda
  if (!value) {
    throw new Error(
      'awslambda is not defined: this module runs only in Lambda (the local runner passes pipelineHandlers a streaming shim instead)',
    )
  }
  return value
}
