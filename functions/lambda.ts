// The Lambda entry point of every A2Agent function (the construct picks the
// export by handler name). `a2-aws-agent-module` is the user's agent module:
// an esbuild alias in the construct, the example agent for typechecking.

import { Logger } from '@aws-lambda-powertools/logger'
import * as agentModule from 'a2-aws-agent-module'
import { readAwsEnvironment } from '../shared/aws/agent-environment.ts'
import { lambdaGlobal } from '../shared/aws/lambda/awslambda.ts'
import { pipelineHandlers } from '../shared/aws/lambda/pipeline-handlers.ts'

const logger = new Logger({ serviceName: 'a2' })

const handlers = pipelineHandlers(agentModule as Record<string, unknown>, {
  environment: readAwsEnvironment(),
  logger,
  httpResponseStream: {
    from: (stream, metadata) => lambdaGlobal().HttpResponseStream.from(stream, metadata),
  },
})

export const http = lambdaGlobal().streamifyResponse(handlers.http)
export const router = handlers.router
export const admissionLane = handlers.admission
export const generationLane = handlers.generation
export const toolsLane = handlers.tools
export const handlersLane = handlers.handlers
export const ingress = handlers.ingress
export const timers = handlers.timers
