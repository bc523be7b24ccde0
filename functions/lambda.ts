// The Lambda entry point of every A2Agent function (the construct picks the
// export by handler name). `a2-aws-agent-module` is the user's agent module:
// an esbuild alias in the construct, the example agent for typechecking.

import { Logger } from '@aws-lambda-powertools/logger'
import * as agentModule from 'a2-aws-agent-module'
import { readAwsEnvironment } from '../shared/aws/agent-environment.ts'
import { readHttpAuth } from '../shared/aws/auth-environment.ts'
import { lambdaGlobal } from '../shared/aws/lambda/awslambda.ts'
import { withLambdaContext } from '../shared/aws/lambda/lambda-context.ts'
import { pipelineHandlers } from '../shared/aws/lambda/pipeline-handlers.ts'
import { readSessionKeySecret } from '../shared/aws/session-key-secret.ts'

const logger = new Logger({ serviceName: 'a2' })

const environment = readAwsEnvironment()
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
