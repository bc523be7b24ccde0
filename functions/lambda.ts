// The Lambda entry point of every A2Agent function (the construct picks the
// export by handler name). `a2-aws-agent-module` is the user's agent module:
// an esbuild alias in the construct, the example agent for typechecking.

import { Logger } from '@aws-lambda-powertools/logger'
import { Tracer } from '@aws-lambda-powertools/tracer'
import { DEFAULT_METRICS_TARGET, readAwsEnvironment } from '../shared/aws/agent-environment.ts'
import { readHttpAuth } from '../shared/aws/auth-environment.ts'
import { lambdaGlobal } from '../shared/aws/lambda/awslambda.ts'
import { cloudWatchMetrics } from '../shared/aws/lambda/cloudwatch-metrics.ts'
import { loadSecrets } from '../shared/aws/lambda/cold-start-secrets.ts'
import { withTracing } from '../shared/aws/lambda/invocation-tracing.ts'
import { withLambdaContext } from '../shared/aws/lambda/lambda-context.ts'
import { pipelineHandlers } from '../shared/aws/lambda/pipeline-handlers.ts'
import { readSessionKeySecret } from '../shared/aws/session-key-secret.ts'
import { messageOf } from '../shared/log/message-of.ts'

const logger = new Logger({ serviceName: 'a2' })
const environment = readAwsEnvironment()
const target = environment.metrics ?? DEFAULT_METRICS_TARGET
// Off (a no-op) when the construct's `tracing` is false: POWERTOOLS_TRACE_ENABLED.
const tracer = new Tracer({ serviceName: target.service })

// At cold start, before the agent module loads (it may read process.env as
// it loads) and before any handler runs: the secrets the construct named
// become the environment variables model providers read. A secret that
// cannot be read fails the cold start, logged with its code first.
try {
  await loadSecrets()
} catch (error) {
  logger.error('a2: cold start failed reading the secrets', {
    code: (error as { code?: string }).code,
    error: messageOf(error),
  })
  throw error
}
const agentModule = await import('a2-aws-agent-module')

const handlers = pipelineHandlers(agentModule as Record<string, unknown>, {
  environment,
  logger,
  // Read by the HTTP functions only; the session key on the first request
  // that needs it, then kept for the container's life.
  auth: () =>
    readHttpAuth(process.env, (secretId) =>
      readSessionKeySecret(
        secretId,
        environment.endpoint ? { endpoint: environment.endpoint } : {},
      ),
    ),
  httpResponseStream: {
    from: (stream, metadata) => lambdaGlobal().HttpResponseStream.from(stream, metadata),
  },
  // EMF lines on stdout, one per invocation: no API call in the invocation.
  metrics: cloudWatchMetrics(target),
  ...(environment.modelTelemetry ? { modelTelemetry: true } : {}),
})
// Every log line names its function, request ID and cold start; every
// invocation is a subsegment of its X-Ray trace.
const logged = withLambdaContext(logger, withTracing(tracer, handlers))

export const http = lambdaGlobal().streamifyResponse(logged.http)
export const router = logged.router
export const admissionLane = logged.admission
export const generationLane = logged.generation
export const toolsLane = logged.tools
export const handlersLane = logged.handlers
export const ingress = logged.ingress
export const timers = logged.timers
