// The Lambda entry point of every A2Agent function (the construct picks the
// export by handler name). `a2-aws-agent-module` is the user's agent module:
// an esbuild alias in the construct, the example agent for typechecking.

import { Logger } from '@aws-lambda-powertools/logger'
import { readAwsEnvironment } from '../shared/aws/agent-environment.ts'
import { lambdaGlobal } from '../shared/aws/lambda/awslambda.ts'
import { loadSecrets } from '../shared/aws/lambda/cold-start-secrets.ts'
import { withLambdaContext } from '../shared/aws/lambda/lambda-context.ts'
import { pipelineHandlers } from '../shared/aws/lambda/pipeline-handlers.ts'

const logger = new Logger({ serviceName: 'a2' })

// At cold start, before the agent module loads (it may read process.env as
// it loads) and before any handler runs: the secrets the construct named
// become the environment variables model providers read. A secret that
// cannot be read fails the cold start, logged with its code first.
try {
  await loadSecrets()
} catch (error) {
  logger.error('a2: cold start failed reading the secrets', {
    code: (error as { code?: string }).code,
    error: error instanceof Error ? error.message : String(error),
  })
  throw error
}
const agentModule = await import('a2-aws-agent-module')

const handlers = pipelineHandlers(agentModule as Record<string, unknown>, {
  environment: readAwsEnvironment(),
  logger,
  httpResponseStream: {
    from: (stream, metadata) => lambdaGlobal().HttpResponseStream.from(stream, metadata),
  },
})
// Every log line names its function, request ID and cold start.
const logged = withLambdaContext(logger, handlers)

export const http = lambdaGlobal().streamifyResponse(logged.http)
export const router = logged.router
export const admissionLane = logged.admission
export const generationLane = logged.generation
export const toolsLane = logged.tools
export const handlersLane = logged.handlers
export const ingress = logged.ingress
export const timers = logged.timers
